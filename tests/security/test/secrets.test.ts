import { randomBytes } from "node:crypto";
import { dumpRedis } from "@roundtrip/test-services";
import { accessTokenHash, dpopBoundToken, dpopKeyPair, dpopProof } from "@roundtrip/test-support/dpop";
import { postToolsList } from "@roundtrip/test-support/wire";
import { exportJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legacyFlow, modernFlow } from "../src/flows.js";
import { openSession } from "../src/legacy-wire.js";
import { PUBLIC_URL, Target } from "../src/target.js";

/**
 * Known secrets sent through every path the reference server has (both eras, each kind of question,
 * the sealed state, the approval store, DPoP, token introspection), then searched for in every line
 * it logged at trace level and in everything its Redis holds. Secrets are unique per run, so a hit
 * cannot be a coincidence.
 */
const secret = (what: string) => `${what}-${randomBytes(9).toString("hex")}`;

let target: Target;

beforeAll(async () => {
  target = await Target.start({ redis: true, env: { OAUTH_DPOP: "accept" } });
}, 240_000);

afterAll(async () => {
  await target?.close();
});

describe("secrets handled by the reference server", () => {
  it("reach neither its log nor its Redis in clear, whichever path carried them", async () => {
    const url = target.instance.url;
    const alice = await target.token("alice");
    const book = target.secrets;

    // Arguments and answers of the 2026-07-28 era, with the sealed states the rounds carried.
    const serviceName = secret("svc");
    const created = await modernFlow(url, alice, "create_service", { name: serviceName }, "unused");
    book.remember("tool argument (2026 era)", serviceName);
    for (const state of created.states) book.remember("sealed requestState", state);
    expect(JSON.stringify(created.body)).toContain(serviceName);

    const completion = secret("completion");
    const summarised = await modernFlow(url, alice, "summarize", { text: secret("text") }, completion);
    book.remember("sampling answer (2026 era)", completion);
    expect(JSON.stringify(summarised.body)).toContain(completion);

    // The deploy's details go to the approval store; its URL is left unopened.
    const service = `svc-${randomBytes(6).toString("hex")}`;
    const deploy = await modernFlow(url, alice, "deploy", { service, env: "production" }, "unused");
    book.remember("deploy argument", service);
    expect(JSON.stringify(deploy.body)).toContain("/approvals/");

    // The same through a 2025-era session, its questions asked over SSE.
    const session = await openSession(url, alice);
    const legacyName = secret("legacy-svc");
    const legacyCompletion = secret("legacy-completion");
    book.remember("tool argument (2025 era)", legacyName);
    book.remember("sampling answer (2025 era)", legacyCompletion);
    expect(
      JSON.stringify(await legacyFlow(url, alice, session, "create_service", { name: legacyName }, "")),
    ).toContain(legacyName);
    expect(
      JSON.stringify(await legacyFlow(url, alice, session, "summarize", { text: "x" }, legacyCompletion)),
    ).toContain(legacyCompletion);

    // A DPoP-bound token, its proof and the private key that signs proofs.
    const key = await dpopKeyPair();
    const bound = await dpopBoundToken(target.auth.tokenEndpoint, PUBLIC_URL, key);
    const proof = await dpopProof(key, PUBLIC_URL, { ath: accessTokenHash(bound) });
    book.remember("DPoP-bound access token", bound);
    book.remember("DPoP proof", proof);
    book.remember("DPoP private key", String((await exportJWK(key.privateKey)).d));
    const listed = await postToolsList(url, { authorization: `DPoP ${bound}`, dpop: proof });
    expect(listed.status).toBe(200);

    expect(book.size).toBeGreaterThanOrEqual(10);
    expect(book.leaksIn(target.log())).toEqual([]);
    const { text: dump } = await dumpRedis(target.redis.url);
    expect(dump).toContain("roundtrip:");
    expect(book.leaksIn(dump)).toEqual([]);
  });
});

describe("an instance that introspects opaque tokens", () => {
  it("logs neither the tokens nor its own client secret", async () => {
    const introspecting = await Target.start({ introspection: true });
    try {
      const token = await introspecting.token("alice");
      introspecting.secrets.remember("introspection client secret", Target.INTROSPECTION_SECRET);
      const flow = await modernFlow(
        introspecting.instance.url,
        token,
        "create_service",
        { name: "ledger" },
        "",
      );
      expect(JSON.stringify(flow.body)).toContain("ledger");
      expect(introspecting.secrets.leaksIn(introspecting.log())).toEqual([]);
    } finally {
      await introspecting.close();
    }
  });
});
