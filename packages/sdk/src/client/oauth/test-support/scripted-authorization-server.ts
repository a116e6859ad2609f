import type { IncomingMessage, ServerResponse } from "node:http";
import { type IssuerServer, startIssuerServer } from "../../../server/auth/test-support/issuer-server.js";

export interface TokenCall {
  form: URLSearchParams;
  authorization: string | undefined;
  /** The DPoP proof header (RFC 9449), if the client sent one. */
  dpop?: string | undefined;
}

export interface TokenAnswer {
  status?: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * An authorization server and the protected resource metadata of an MCP endpoint on one loopback
 * origin, scripted per test: the metadata documents are mutable objects, every authorization,
 * registration and token request is recorded, and the token endpoint answers what `onToken` says.
 */
export interface ScriptedAuthorizationServer {
  origin: string;
  /** The issuer identifier, `origin` unless `issuerPath` was given. */
  issuer: string;
  /** The MCP endpoint the metadata describes: `${origin}/mcp`. */
  resourceUrl: string;
  /** Served at the path-inserted well-known location of `resourceUrl`. */
  resourceMetadata: Record<string, unknown>;
  /** Served at the RFC 8414 location of `issuer`. */
  metadata: Record<string, unknown>;
  tokenCalls: TokenCall[];
  /** Each RFC 7009 revocation request, form and Authorization header. */
  revocations: TokenCall[];
  registrations: Record<string, unknown>[];
  /** Each authorization URL the client sent the user agent to. */
  authorizations: URL[];
  onToken: (call: TokenCall) => TokenAnswer;
  /** What the "user agent" brings back from an authorization URL: code, state and iss by default. */
  onAuthorize: (url: URL) => URLSearchParams;
  /** A redirect for the provider whose authorize() answers by `onAuthorize`. */
  redirect: { redirectUri: string; authorize(url: URL): Promise<URLSearchParams> };
  server: IssuerServer;
  close(): Promise<void>;
}

async function formOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function startScriptedAuthorizationServer(
  options: { issuerPath?: string } = {},
): Promise<ScriptedAuthorizationServer> {
  const server = await startIssuerServer();
  const origin = server.origin;
  const issuer = `${origin}${options.issuerPath ?? ""}`;
  let issued = 0;
  const scripted: ScriptedAuthorizationServer = {
    origin,
    issuer,
    resourceUrl: `${origin}/mcp`,
    resourceMetadata: {
      resource: `${origin}/mcp`,
      authorization_servers: [issuer],
      scopes_supported: ["mcp:read"],
    },
    metadata: {
      issuer,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      revocation_endpoint: `${origin}/revoke`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
      authorization_response_iss_parameter_supported: true,
    },
    tokenCalls: [],
    revocations: [],
    registrations: [],
    authorizations: [],
    onToken: (call) => ({
      body: {
        access_token: `at-${++issued}`,
        token_type: "Bearer",
        expires_in: 300,
        refresh_token: `rt-${issued}`,
        ...(call.form.get("scope") ? { scope: call.form.get("scope") } : {}),
      },
    }),
    onAuthorize: (url) =>
      new URLSearchParams({ code: "the-code", state: url.searchParams.get("state") ?? "", iss: issuer }),
    redirect: {
      redirectUri: "http://127.0.0.1:8976/callback",
      authorize: async (url) => {
        scripted.authorizations.push(url);
        return scripted.onAuthorize(url);
      },
    },
    server,
    close: () => server.close(),
  };
  server.route("/.well-known/oauth-protected-resource/mcp", (_req, res) =>
    sendJson(res, 200, scripted.resourceMetadata),
  );
  server.route(`/.well-known/oauth-authorization-server${options.issuerPath ?? ""}`, (_req, res) =>
    sendJson(res, 200, scripted.metadata),
  );
  server.route("/token", async (req, res) => {
    const dpop = req.headers.dpop;
    const call = {
      form: new URLSearchParams(await formOf(req)),
      authorization: req.headers.authorization,
      dpop: Array.isArray(dpop) ? dpop.join(", ") : dpop,
    };
    scripted.tokenCalls.push(call);
    const answer = scripted.onToken(call);
    sendJson(res, answer.status ?? 200, answer.body, answer.headers);
  });
  server.route("/revoke", async (req, res) => {
    scripted.revocations.push({
      form: new URLSearchParams(await formOf(req)),
      authorization: req.headers.authorization,
    });
    res.writeHead(200).end();
  });
  server.route("/register", async (req, res) => {
    const body = JSON.parse(await formOf(req)) as Record<string, unknown>;
    scripted.registrations.push(body);
    const method = body.token_endpoint_auth_method;
    sendJson(res, 201, {
      ...body,
      client_id: `dynamic-${scripted.registrations.length}`,
      ...(method === "none" ? {} : { client_secret: "dynamic-secret" }),
    });
  });
  return scripted;
}
