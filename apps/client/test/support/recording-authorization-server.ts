import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

/**
 * An authorization server the client must never give credentials to, written here as raw HTTP: it
 * publishes metadata that looks usable, refuses every token request, and records every request it
 * gets, headers and body, so a test can show what reached it.
 */
export interface RecordingAuthorizationServer {
  issuer: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startRecordingAuthorizationServer(): Promise<RecordingAuthorizationServer> {
  const requests: RecordedRequest[] = [];
  let issuer = "";
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    requests.push({
      method: req.method ?? "",
      path,
      authorization: req.headers.authorization,
      body: await bodyOf(req),
    });
    if (path.startsWith("/.well-known/")) {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "client_credentials"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
        }),
      );
      return;
    }
    if (path === "/jwks") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}');
      return;
    }
    res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_client"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
