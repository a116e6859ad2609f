import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface IssuerServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Replaces what one path answers; unset paths answer 404. */
  route(path: string, handler: Route): void;
  /** Serves `body` as JSON on `path`. */
  json(path: string, body: unknown, status?: number): void;
  /** How many requests each path received. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** A bare HTTP server on 127.0.0.1 for serving metadata and key sets in the shapes a test needs. */
export async function startIssuerServer(): Promise<IssuerServer> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    route: (path, handler) => routes.set(path, handler),
    json(path, body, status = 200) {
      routes.set(path, (_req, res) => {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
    },
    close() {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export interface LocalSigner {
  kid: string;
  publicJwk: JWK;
  sign(claims: JWTPayload, header?: { typ?: string | undefined; kid?: string }): Promise<string>;
}

/** An ES256 key pair that signs access tokens the way an authorization server would. */
export async function localSigner(kid = "test-key"): Promise<LocalSigner> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return {
    kid,
    publicJwk,
    sign(claims, header = {}) {
      const typ = "typ" in header ? header.typ : "at+jwt";
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: header.kid ?? kid, ...(typ === undefined ? {} : { typ }) })
        .sign(privateKey);
    },
  };
}

/** Claims an accepting verifier configured with `issuer` and `audience` takes. */
export function accessClaims(issuer: string, audience: string, extra: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    aud: audience,
    sub: "alice",
    client_id: "client-1",
    scope: "a b",
    iat: now,
    exp: now + 60,
    ...extra,
  };
}
