import type { webcrypto } from "node:crypto";
import { DEVELOPMENT_CLIENT_KEY, type LocalAuthServer } from "@roundtrip/local-auth";
import { Client } from "@roundtrip/sdk";
import { type OAuthClientOptions, oauthClientProvider } from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { RedisServer } from "@roundtrip/test-services";
import {
  accessTokenHash,
  type DpopKeyPair,
  dpopBoundToken,
  dpopKeyPair,
  dpopProof,
} from "@roundtrip/test-support/dpop";
import { postToolsList } from "@roundtrip/test-support/wire";
import { importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const METADATA_URL = "https://mcp.roundtrip.test/.well-known/oauth-protected-resource/mcp";

let as: LocalAuthServer;
let app: RunningServer;
let strict: RunningServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as, { OAUTH_DPOP: "accept" }));
  strict = await startServer(serverEnvironment(as, { OAUTH_DPOP: "require" }));
});
afterAll(async () => {
  await app?.close();
  await strict?.close();
  await as?.close();
});

/** The load balancer of these tests: PUBLIC_URL's origin reaches `target`, anything else goes as is. */
function routedTo(target: RunningServer): typeof fetch {
  const publicOrigin = new URL(PUBLIC_URL).origin;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.origin !== publicOrigin) return fetch(input, init);
    return fetch(new URL(`${url.pathname}${url.search}`, target.origin), init);
  };
}

/** A token of the DPoP-bound client, bound to `key` by the proof sent to the token endpoint. */
const boundToken = (key: DpopKeyPair) => dpopBoundToken(as.tokenEndpoint, PUBLIC_URL, key);

/** The headers of a DPoP request: `token`, and a fresh proof for it signed by `signer`. */
async function dpopHeaders(token: string, signer: DpopKeyPair): Promise<Record<string, string>> {
  return {
    authorization: `DPoP ${token}`,
    dpop: await dpopProof(signer, PUBLIC_URL, { ath: accessTokenHash(token) }),
  };
}

interface ParsedChallenge {
  error?: string;
  description?: string;
  resourceMetadata?: string;
  params: Record<string, string>;
}

/** The challenge of `scheme` in a WWW-Authenticate value; a quoted value is consumed whole, so text in it is never a scheme. */
function challengeOf(header: string | null, scheme: string): ParsedChallenge | undefined {
  const challenges = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const [, name = "", value] of (header ?? "").matchAll(/([A-Za-z_]+)(?:="((?:[^"\\]|\\.)*)")?/g)) {
    if (value === undefined) {
      current = {};
      challenges.set(name.toLowerCase(), current);
    } else if (current) current[name] = value;
  }
  const params = challenges.get(scheme.toLowerCase());
  if (!params) return undefined;
  return {
    ...(params.error ? { error: params.error } : {}),
    ...(params.error_description ? { description: params.error_description } : {}),
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
    params,
  };
}

/** One tools/list on `target`, as a correct 2026-07-28 client sends it. */
async function call(target: RunningServer, headers: Record<string, string>) {
  const before = target.dispatched.length;
  const response = await postToolsList(target.url, headers);
  const text = await response.text();
  const header = response.headers.get("www-authenticate");
  if (response.status !== 200) expect(target.dispatched.length).toBe(before);
  return {
    status: response.status,
    text,
    retryAfter: response.headers.get("retry-after"),
    header,
    bearer: challengeOf(header, "bearer"),
    dpop: challengeOf(header, "dpop"),
  };
}

async function readyz(target: RunningServer): Promise<boolean> {
  const body = (await (await fetch(`${target.origin}/readyz`)).json()) as { status?: string };
  return body.status === "ready";
}

/** A client of the local authorization server's with DPoP on, signed in through `target`. */
function dpopClient(
  target: RunningServer,
  credentials: Pick<OAuthClientOptions, "clientId" | "clientSecret" | "clientPrivateKey">,
): Client {
  const routed = routedTo(target);
  return new Client(PUBLIC_URL, {
    logger: silentLogger,
    http: {
      fetch: routed,
      auth: oauthClientProvider({
        grant: "client_credentials",
        ...credentials,
        clientIssuer: as.issuer,
        scope: "mcp:tools",
        dpop: true,
        fetch: routed,
      }),
    },
  });
}

/** 401 with `DPoP error="invalid_dpop_proof"` naming the algorithms and the metadata. */
function expectInvalidProof(reply: Awaited<ReturnType<typeof call>>, description: RegExp) {
  expect(reply.status).toBe(401);
  expect(reply.dpop?.error).toBe("invalid_dpop_proof");
  expect(reply.dpop?.params.algs).toContain("ES256");
  expect(reply.dpop?.resourceMetadata).toBe(METADATA_URL);
  expect(reply.dpop?.description).toMatch(description);
  expect(reply.bearer?.error).toBeUndefined();
}

/** 503 with `Retry-After: 5`, the text saying `why` the proof could not be checked. */
function expectRetryLater(reply: Awaited<ReturnType<typeof call>>, why: RegExp) {
  expect(reply.status).toBe(503);
  expect(reply.retryAfter).toBe("5");
  expect(reply.text).toMatch(why);
}

describe("DPoP at the reference server, with tokens from the local authorization server", () => {
  it("accepts a DPoP-bound token with proofs made by the SDK's OAuth client", async () => {
    for (const target of [app, strict]) {
      const client = dpopClient(target, {
        clientId: "mcp-machine-dpop",
        clientSecret: "mcp-machine-dpop-secret",
      });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("list_workspace");
      await client.close();
    }
  });

  it("lets the private_key_jwt client sign in, and present its token with DPoP", async () => {
    const client = dpopClient(strict, {
      clientId: "mcp-machine-key",
      clientPrivateKey: {
        key: (await importJWK(DEVELOPMENT_CLIENT_KEY, "ES256")) as webcrypto.CryptoKey,
        kid: DEVELOPMENT_CLIENT_KEY.kid,
      },
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("list_workspace");
    await client.close();
  });

  it("refuses a replayed proof (same jti)", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const headers = await dpopHeaders(token, key);
    expect((await call(app, headers)).status).toBe(200);
    expectInvalidProof(await call(app, headers), /replayed/);
  });

  it("refuses a proof signed by another key than the token's cnf.jkt", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const other = await dpopKeyPair();
    expectInvalidProof(await call(app, await dpopHeaders(token, other)), /cnf\.jkt/);
  });

  it("refuses a proof for another method or another URL", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const wrongMethod = await dpopProof(key, PUBLIC_URL, { ath: accessTokenHash(token), htm: "GET" });
    expectInvalidProof(await call(app, { authorization: `DPoP ${token}`, dpop: wrongMethod }), /htm/);
    // The address this instance listens on is not the URL clients are told to use.
    const wrongUrl = await dpopProof(key, app.url, { ath: accessTokenHash(token) });
    expectInvalidProof(await call(app, { authorization: `DPoP ${token}`, dpop: wrongUrl }), /htu/);
  });

  it("refuses a stale proof (iat outside the window)", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const stale = await dpopProof(key, PUBLIC_URL, {
      ath: accessTokenHash(token),
      iat: Math.floor(Date.now() / 1000) - 300,
    });
    expectInvalidProof(await call(app, { authorization: `DPoP ${token}`, dpop: stale }), /iat/);
  });

  it("refuses a proof without ath", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    expectInvalidProof(
      await call(app, { authorization: `DPoP ${token}`, dpop: await dpopProof(key, PUBLIC_URL) }),
      /ath/,
    );
  });

  it("refuses a DPoP-bound token sent as Bearer", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const reply = await call(app, {
      authorization: `Bearer ${token}`,
      dpop: await dpopProof(key, PUBLIC_URL, { ath: accessTokenHash(token) }),
    });
    expect(reply.status).toBe(401);
    expect(reply.bearer?.error).toBe("invalid_token");
    expect(reply.bearer?.description).toMatch(/DPoP-bound/);
    expect(reply.dpop?.params.algs).toContain("ES256");
    expect(reply.dpop?.error).toBeUndefined();
  });

  it("publishes in its resource metadata that it takes DPoP, and with OAUTH_DPOP=require that it requires it", async () => {
    const metadataOf = async (server: RunningServer) =>
      (await (await fetch(new URL(new URL(METADATA_URL).pathname, server.origin))).json()) as {
        dpop_signing_alg_values_supported?: string[];
        dpop_bound_access_tokens_required?: boolean;
      };
    const accepting = await metadataOf(app);
    expect(accepting.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(["ES256", "EdDSA"]));
    expect(accepting.dpop_signing_alg_values_supported).not.toContain("HS256");
    expect(accepting.dpop_bound_access_tokens_required).toBe(false);
    expect((await metadataOf(strict)).dpop_bound_access_tokens_required).toBe(true);
  });

  it("with OAUTH_DPOP=require refuses bearer tokens and challenges with DPoP only", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    expect((await call(app, { authorization: `Bearer ${token}` })).status).toBe(200);
    const reply = await call(strict, { authorization: `Bearer ${token}` });
    expect(reply.status).toBe(401);
    expect(reply.bearer).toBeUndefined();
    expect(reply.dpop?.error).toBe("invalid_token");
    expect(reply.dpop?.description).toMatch(/only DPoP-bound/);
  });
});

describe("DPoP across a fleet sharing one Redis", () => {
  let redis: RedisServer;
  let first: RunningServer;
  let second: RunningServer;
  beforeAll(async () => {
    redis = await RedisServer.start();
    const fleet = { OAUTH_DPOP: "accept", REDIS_URL: redis.url, SERVER_NAME: "roundtrip-fleet" };
    first = await startServer(serverEnvironment(as, fleet));
    second = await startServer(serverEnvironment(as, fleet));
  }, 120_000);
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await redis?.stop();
  });

  it("refuses on one instance a proof another instance took, and takes a fresh one there", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    const headers = await dpopHeaders(token, key);
    expect((await call(first, headers)).status).toBe(200);
    expectInvalidProof(await call(second, headers), /replayed/);
    const fresh = await dpopHeaders(token, key);
    expect((await call(second, fresh)).status).toBe(200);
  });

  it("answers 503 with Retry-After while Redis is away, rather than take a proof unchecked", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    await redis.kill();
    try {
      expectRetryLater(
        await call(first, await dpopHeaders(token, key)),
        /DPoP proofs \(Redis\) could not be reached.*retry shortly/,
      );
    } finally {
      await redis.start();
    }
  });

  it("answers 503 with Retry-After while Redis is frozen, rather than wait for it", async () => {
    const key = await dpopKeyPair();
    const token = await boundToken(key);
    // Connected first (a test before may have restarted Redis): the stall is the only cause here.
    for (const deadline = Date.now() + 30_000; !(await readyz(first)); ) {
      if (Date.now() > deadline) throw new Error("the instance did not reconnect to Redis within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    redis.freeze();
    try {
      expectRetryLater(
        await call(first, await dpopHeaders(token, key)),
        /DPoP proofs \(Redis\) could not be reached.*did not answer within 2000 ms/,
      );
    } finally {
      redis.thaw();
    }
  }, 60_000);
});
