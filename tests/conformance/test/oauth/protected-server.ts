import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeHandler } from "@roundtrip/sdk";
import {
  bearerAuth,
  jwtVerifier,
  protectedResourceMetadata,
  protectedResourceMetadataHandler,
  protectedResourceMetadataUrl,
} from "@roundtrip/sdk/resource-server";
import { Server } from "@roundtrip/sdk/server";

export interface ProtectedServer {
  /** The MCP endpoint and canonical resource URI. */
  url: string;
  /** Every request's Authorization header, in arrival order. */
  authorizations: (string | undefined)[];
  /**
   * Protects the endpoint with JWTs from `issuer`: `mcp:tools` for everything, `mcp:deploy` too for the
   * deploy tool. `metadataResource` overrides the resource the metadata names (to publish a wrong one).
   */
  protect(issuer: string, options?: { metadataResource?: string }): void;
  close(): Promise<void>;
}

/** whoami answers the principal of the token; deploy needs more scope. */
function toolServer(): Server {
  const server = new Server({ name: "oauth-integration", version: "0.0.0" });
  server.onListTools(() => ({
    tools: [
      { name: "whoami", inputSchema: { type: "object" } },
      { name: "deploy", inputSchema: { type: "object" } },
    ],
  }));
  server.onCallTool((ctx, params) => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({ tool: params.name, subject: ctx.auth?.subject, scopes: ctx.auth?.scopes }),
      },
    ],
  }));
  return server;
}

/**
 * A Roundtrip MCP server behind bearer auth on 127.0.0.1, port 0. It listens before it is protected,
 * because the authorization server must know its URL (the resource) before it can be configured.
 */
export async function startProtectedServer(): Promise<ProtectedServer> {
  const authorizations: (string | undefined)[] = [];
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => {
    if (req.method === "POST") authorizations.push(req.headers.authorization);
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    authorizations,
    protect(issuer, options = {}) {
      const metadata = protectedResourceMetadataHandler(
        protectedResourceMetadata({
          resource: options.metadataResource ?? url,
          authorizationServers: [issuer],
          scopesSupported: ["mcp:tools"],
        }),
        { paths: [new URL(protectedResourceMetadataUrl(url)).pathname] },
      );
      const mcp = createNodeHandler(toolServer(), {
        authenticate: bearerAuth({
          verifier: jwtVerifier({ issuer, audience: url }),
          resourceMetadataUrl: protectedResourceMetadataUrl(url),
          requiredScopes: ["mcp:tools"],
          toolScopes: { deploy: ["mcp:deploy"] },
        }),
      });
      handle = (req, res) => {
        if (!metadata(req, res)) void mcp(req, res);
      };
    },
    close() {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
