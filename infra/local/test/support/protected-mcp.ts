import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeHandler } from "@roundtrip/sdk";
import {
  type BearerAuthOptions,
  bearerAuth,
  protectedResourceMetadata,
  protectedResourceMetadataHandler,
  protectedResourceMetadataUrl,
  type TokenVerifier,
} from "@roundtrip/sdk/resource-server";
import { type AuthInfo, Server } from "@roundtrip/sdk/server";

export const SCOPES = ["mcp:tools", "mcp:deploy"] as const;

/** What the tools reply with: the principal the transport handed them. */
export interface Principal {
  clientId: string;
  issuer: string | undefined;
  subject: string | undefined;
  scopes: string[];
  resource: string | undefined;
}

export interface ProtectedMcp {
  /** The MCP endpoint and canonical resource URI, e.g. `http://127.0.0.1:40123/mcp`. */
  url: string;
  /** The path-inserted RFC 9728 metadata URL. */
  metadataUrl: string;
  /** Every tool call that reached a handler. */
  calls: { tool: string; auth: AuthInfo | undefined }[];
  /** Puts the server behind bearer auth with `verifier`, advertising `issuer` in its metadata. */
  protect(
    verifier: TokenVerifier,
    issuer: string,
    options?: Omit<BearerAuthOptions, "verifier" | "resourceMetadataUrl">,
  ): void;
  close(): Promise<void>;
}

function principalOf(auth: AuthInfo | undefined): Principal | undefined {
  if (!auth) return undefined;
  return {
    clientId: auth.clientId,
    issuer: auth.issuer,
    subject: auth.subject,
    scopes: auth.scopes,
    resource: auth.resource,
  };
}

/** A low-level Server with a `whoami` and a `deploy` tool; both record the call and answer the principal. */
function toolServer(calls: ProtectedMcp["calls"]): Server {
  const server = new Server({ name: "protected-fixture", version: "0.0.0" });
  server.onListTools(() => ({
    tools: [
      { name: "whoami", inputSchema: { type: "object" } },
      { name: "deploy", inputSchema: { type: "object" } },
    ],
  }));
  server.onCallTool((ctx, params) => {
    calls.push({ tool: params.name, auth: ctx.auth });
    return { content: [{ type: "text", text: JSON.stringify(principalOf(ctx.auth) ?? null) }] };
  });
  return server;
}

/**
 * Listens first, because the authorization server must know this server's canonical URI (its port) before
 * it can issue tokens for it; `protect` then installs the MCP handler and the metadata documents.
 */
export async function startProtectedMcp(): Promise<ProtectedMcp> {
  const calls: ProtectedMcp["calls"] = [];
  const server = toolServer(calls);
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => {
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  const metadataUrl = protectedResourceMetadataUrl(url);

  return {
    url,
    metadataUrl,
    calls,
    protect(verifier, issuer, options = {}) {
      const mcp = createNodeHandler(server, {
        authenticate: bearerAuth({ verifier, resourceMetadataUrl: metadataUrl, ...options }),
      });
      const metadata = protectedResourceMetadataHandler(
        protectedResourceMetadata({
          resource: url,
          authorizationServers: [issuer],
          scopesSupported: [...SCOPES],
          resourceName: "Roundtrip protected fixture",
        }),
      );
      handle = (req, res) => {
        if (metadata(req, res)) return;
        if (new URL(req.url ?? "/", url).pathname === "/mcp") void mcp(req, res);
        else res.writeHead(404).end();
      };
    },
    close() {
      server.close();
      http.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        http.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
