import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "../transport/http-errors.js";
import { InvalidTokenError } from "./errors.js";
import { introspectionVerifier } from "./introspection-verifier.js";
import { type IssuerServer, startIssuerServer } from "./test-support/issuer-server.js";

// Held calls arrive one by one on a machine that may be busy with other suites.
const HELD_WITHIN = { timeout: 30_000, interval: 20 };

const AUDIENCE = "https://mcp.example/mcp";

let as: IssuerServer;

beforeEach(async () => {
  as = await startIssuerServer();
});
afterEach(() => as.close());

const verifier = (overrides: Partial<Parameters<typeof introspectionVerifier>[0]> = {}) =>
  introspectionVerifier({
    endpoint: `${as.origin}/introspect`,
    clientId: "rs",
    clientSecret: "rs-secret",
    audience: AUDIENCE,
    ...overrides,
  });

const calls = () => as.hits.get("/introspect") ?? 0;

function activeAnswer(res: ServerResponse): void {
  const exp = Math.floor(Date.now() / 1000) + 60;
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ active: true, client_id: "c", aud: AUDIENCE, exp, scope: "a" }));
}

describe("introspectionVerifier refusals", () => {
  it("asks once about a bad token sent again and again, and refuses every repeat", async () => {
    as.json("/introspect", { active: false });
    const check = verifier();
    for (let i = 0; i < 100; i += 1) {
      await expect(check.verify("bogus-token")).rejects.toBeInstanceOf(InvalidTokenError);
    }
    expect(calls()).toBe(1);
  });

  it("asks again once the refusal has aged out", async () => {
    as.json("/introspect", { active: false });
    const check = verifier({ refusalCacheSec: 10, cacheMaxSec: 0 });
    const start = Date.now();
    await expect(check.verify("bogus-token")).rejects.toBeInstanceOf(InvalidTokenError);
    const clock = vi.spyOn(Date, "now").mockReturnValue(start + 60_000);
    try {
      await expect(check.verify("bogus-token")).rejects.toBeInstanceOf(InvalidTokenError);
    } finally {
      clock.mockRestore();
    }
    expect(calls()).toBe(2);
  });

  it("does not remember a failure to reach the authorization server as a refusal", async () => {
    as.json("/introspect", { error: "server_error" }, 500);
    const check = verifier();
    await expect(check.verify("good-token")).rejects.not.toBeInstanceOf(InvalidTokenError);
    as.route("/introspect", (_req, res) => activeAnswer(res));
    await expect(check.verify("good-token")).resolves.toMatchObject({ clientId: "c" });
  });
});

describe("introspectionVerifier concurrency", () => {
  it("keeps at most maxConcurrent calls in flight, queues maxQueued, and refuses the rest with 503", async () => {
    const held: ServerResponse[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    as.route("/introspect", (_req, res) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      res.on("finish", () => {
        inFlight -= 1;
      });
      held.push(res);
    });
    const check = verifier({ concurrency: { maxConcurrent: 2, maxQueued: 1 } });
    const outcomes = Array.from({ length: 5 }, (_, i) =>
      check.verify(`token-${i}`).then(
        () => "accepted",
        (error: unknown) => (error instanceof HttpError ? error.status : error),
      ),
    );
    // The two beyond the queue are refused without waiting for the authorization server.
    expect(await Promise.all([outcomes[3], outcomes[4]])).toEqual([503, 503]);
    await vi.waitFor(() => expect(held.length).toBe(2), HELD_WITHIN);
    for (const res of held.splice(0)) activeAnswer(res);
    await vi.waitFor(() => expect(held.length).toBe(1), HELD_WITHIN);
    for (const res of held.splice(0)) activeAnswer(res);
    expect(await Promise.all(outcomes.slice(0, 3))).toEqual(["accepted", "accepted", "accepted"]);
    expect(mostInFlight).toBe(2);
    expect(calls()).toBe(3);
  });

  it("refuses nonsense limits at configuration", () => {
    expect(() => verifier({ concurrency: { maxConcurrent: 0 } })).toThrow(/maxConcurrent/);
    expect(() => verifier({ concurrency: { maxQueued: -1 } })).toThrow(/maxQueued/);
  });
});
