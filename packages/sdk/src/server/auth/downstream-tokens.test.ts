import type { IncomingMessage } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthInfo } from "../auth-info.js";
import { DownstreamTokenError } from "./downstream-token-error.js";
import { DownstreamTokens } from "./downstream-tokens.js";
import { type IssuerServer, startIssuerServer } from "./test-support/issuer-server.js";

let as: IssuerServer;
let exchanges: URLSearchParams[];
let answer: { status: number; body: Record<string, unknown> };

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

beforeEach(async () => {
  as = await startIssuerServer();
  exchanges = [];
  answer = {
    status: 200,
    body: {
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 300,
    },
  };
  as.json("/.well-known/oauth-authorization-server", {
    issuer: as.origin,
    token_endpoint: `${as.origin}/token`,
  });
  as.route("/token", async (req, res) => {
    const form = await formOf(req);
    exchanges.push(form);
    const body = { access_token: `downstream-${exchanges.length}`, ...answer.body };
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
});
afterEach(() => as.close());

function caller(overrides: Partial<AuthInfo> = {}): AuthInfo {
  return {
    token: "caller-token",
    clientId: "app",
    issuer: as.origin,
    subject: "alice",
    scopes: ["mcp:tools"],
    ...overrides,
  };
}

function tokens(now = () => 1_000_000, maxEntries?: number) {
  return new DownstreamTokens({
    issuer: as.origin,
    clientId: "mcp-server",
    clientSecret: "secret",
    now,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  });
}

describe("DownstreamTokens", () => {
  it("exchanges the caller's token for the downstream audience and returns the new token, never the caller's", async () => {
    const token = await tokens().tokenFor(caller(), {
      audience: "https://deployer.example",
      scope: "deployments:write",
    });
    expect(token).toBe("downstream-1");
    expect(Object.fromEntries(exchanges[0] ?? [])).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: "caller-token",
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: "https://deployer.example",
      scope: "deployments:write",
    });
  });

  it("keeps a token per caller token and audience until shortly before it expires", async () => {
    let now = 1_000_000;
    const downstream = tokens(() => now);
    const deployer = { audience: "https://deployer.example" };
    expect(await downstream.tokenFor(caller(), deployer)).toBe("downstream-1");
    // Another token of the same user (narrower, or bound to a key) gets its own exchange: what the
    // authorization server grants one token is never handed to another.
    const narrower = caller({ token: "caller-token-2", scopes: [] });
    expect(await downstream.tokenFor(narrower, deployer)).toBe("downstream-2");
    expect(await downstream.tokenFor(caller({ token: "bob-token", subject: "bob" }), deployer)).toBe(
      "downstream-3",
    );
    expect(await downstream.tokenFor(caller(), { audience: "https://billing.example" })).toBe("downstream-4");
    now += 269_000;
    expect(await downstream.tokenFor(caller(), deployer)).toBe("downstream-1");
    now += 2_000; // within 30 s of expiry
    expect(await downstream.tokenFor(caller(), deployer)).toBe("downstream-5");
  });

  it("keeps at most maxEntries tokens, dropping the oldest", async () => {
    const downstream = tokens(() => 1_000_000, 2);
    const deployer = { audience: "https://deployer.example" };
    for (const token of ["a", "b", "c"]) await downstream.tokenFor(caller({ token }), deployer);
    await downstream.tokenFor(caller({ token: "c" }), deployer);
    await downstream.tokenFor(caller({ token: "b" }), deployer);
    expect(exchanges).toHaveLength(3);
    await downstream.tokenFor(caller({ token: "a" }), deployer);
    expect(exchanges).toHaveLength(4);
  });

  it("lets a caller give up on a shared exchange without failing the others", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    as.route("/token", async (req, res) => {
      exchanges.push(await formOf(req));
      await held;
      const body = { access_token: `downstream-${exchanges.length}`, ...answer.body };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    const downstream = tokens();
    const deployer = { audience: "https://deployer.example" };
    const leaving = new AbortController();
    const first = downstream.tokenFor(caller(), deployer, leaving.signal);
    const second = downstream.tokenFor(caller(), deployer);
    leaving.abort(new Error("the first caller went away"));
    await expect(first).rejects.toThrow("the first caller went away");
    release();
    expect(await second).toBe("downstream-1");
    expect(exchanges).toHaveLength(1);
  });

  it("refuses an answer that is not a bearer access token, and keeps nothing", async () => {
    for (const body of [
      { issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "DPoP" },
      { issued_token_type: "urn:ietf:params:oauth:token-type:jwt", token_type: "N_A" },
    ]) {
      answer = { status: 200, body: { ...body, expires_in: 300 } };
      const failure = (await tokens()
        .tokenFor(caller(), { audience: "https://deployer.example" })
        .catch((error: unknown) => error)) as DownstreamTokenError;
      expect(failure).toBeInstanceOf(DownstreamTokenError);
      expect(failure.reason).toBe("authorization_server");
      expect(failure.message).toMatch(/where a bearer access token was asked for/);
    }
  });

  it("shares one exchange between concurrent calls for the same token", async () => {
    const downstream = tokens();
    const deployer = { audience: "https://deployer.example" };
    const all = await Promise.all([1, 2, 3].map(() => downstream.tokenFor(caller(), deployer)));
    expect(all).toEqual(["downstream-1", "downstream-1", "downstream-1"]);
    expect(exchanges).toHaveLength(1);
  });

  it("refuses a DPoP-bound caller token for a downstream that requires a bound token, before any request", async () => {
    const bound = caller({ claims: { cnf: { jkt: "thumbprint" } } });
    const failure = await tokens()
      .tokenFor(bound, { audience: "https://deployer.example", requiresBoundToken: true })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DownstreamTokenError);
    expect((failure as DownstreamTokenError).reason).toBe("binding");
    expect((failure as DownstreamTokenError).message).toMatch(/DPoP-bound.*cannot prove possession/);
    expect(exchanges).toEqual([]);
    // The same token for a downstream that takes bearer tokens is exchanged.
    expect(await tokens().tokenFor(bound, { audience: "https://deployer.example" })).toBe("downstream-1");
  });

  it("says who refused and why, without the caller's token, and caches nothing", async () => {
    answer = {
      status: 400,
      body: { error: "unauthorized_client", error_description: "not for this audience" },
    };
    const downstream = tokens();
    const failure = (await downstream
      .tokenFor(caller(), { audience: "https://deployer.example" })
      .catch((error: unknown) => error)) as DownstreamTokenError;
    expect(failure.reason).toBe("refused");
    expect(failure.oauthError).toBe("unauthorized_client");
    expect(failure.message).toContain(as.origin);
    expect(failure.message).not.toContain("caller-token");
    await downstream.tokenFor(caller(), { audience: "https://deployer.example" }).catch(() => undefined);
    expect(exchanges).toHaveLength(2);
  });

  it("refuses a context without a caller token", async () => {
    await expect(
      tokens().tokenFor(undefined, { audience: "https://deployer.example" }),
    ).rejects.toMatchObject({
      reason: "no_caller_token",
    });
  });
});
