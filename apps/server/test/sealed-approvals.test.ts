import { randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { RedisServer } from "@roundtrip/test-services";
import { pino } from "pino";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApprovalLedger, MemoryApprovalLedger } from "../src/approvals/approval-ledger.js";
import { DEPLOYMENT_TTL_MS, type Requester } from "../src/approvals/approval-store.js";
import { RedisApprovalLedger } from "../src/approvals/redis-approval-ledger.js";
import { approvalStore, requested } from "./support/approvals.js";
import { LogCapture } from "./support/log-capture.js";

let redis: RedisServer;
const clients: { destroy(): void }[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.destroy();
  await redis?.stop();
});

async function redisLedger(): Promise<{
  ledger: ApprovalLedger;
  pttl: (release: string) => Promise<number>;
}> {
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on("error", () => {});
  clients.push(client);
  await client.connect();
  const prefix = `test:${randomBytes(4).toString("hex")}:`;
  return {
    ledger: new RedisApprovalLedger({ client, prefix }),
    pttl: (release) => client.pTTL(`${prefix}${release}`),
  };
}

const requester: Requester = {
  clientId: "mcp-interactive-client",
  issuer: "https://issuer.roundtrip.test",
  subject: "alice-subject-7",
};
const DETAILS = { service: "quartz-ledger", env: "production", principal: requester };
const IN_CLEAR = [DETAILS.service, DETAILS.env, requester.clientId, requester.issuer, requester.subject];
const release = () => `rel-${randomBytes(16).toString("hex")}`;

/** The server's logger, writing into a capture. */
function logged() {
  const capture = new LogCapture();
  return { capture, logger: pino({ level: "info" }, capture) };
}

describe.each([
  ["in memory", async () => ({ ledger: new MemoryApprovalLedger() as ApprovalLedger })],
  ["in Redis (redis-server)", redisLedger],
])("approvals %s", (_where, makeLedger) => {
  it("reach the ledger sealed: nothing the user asked for, nor who they are, in clear", async () => {
    const { ledger } = await makeLedger();
    const store = approvalStore(ledger);
    const id = release();
    await requested(store, id, DETAILS);
    expect(await store.approve(id, requester)).toBe("approved");
    const sealed = (await ledger.get(id)) as string;
    expect(sealed.startsWith("v1.")).toBe(true);
    for (const clear of IN_CLEAR) expect(sealed).not.toContain(clear);
    expect(await store.status(id)).toEqual({
      release: id,
      service: DETAILS.service,
      env: DETAILS.env,
      requester,
      state: "approved",
      requestedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it("keep a rejection sealed, final, and refused without a valid reason", async () => {
    const { ledger } = await makeLedger();
    const store = approvalStore(ledger);
    const id = release();
    const reason = "quartz freeze until the audit";
    await requested(store, id, DETAILS);
    const bob = { issuer: requester.issuer, subject: "bob" };
    expect(await store.reject(id, bob, reason)).toBe("not-requester");
    for (const bad of ["", "   ", "x".repeat(201), "two\nlines"]) {
      await expect(store.reject(id, requester, bad)).rejects.toThrow(RangeError);
    }
    expect((await store.status(id))?.state).toBe("pending");

    expect(await store.reject(id, { ...requester, name: "Alice Quartz" }, `  ${reason} `)).toBe("rejected");
    const sealed = (await ledger.get(id)) as string;
    for (const clear of [...IN_CLEAR, reason, "Alice Quartz"]) expect(sealed).not.toContain(clear);
    expect((await store.status(id))?.rejection).toEqual({
      by: { issuer: requester.issuer, subject: requester.subject, name: "Alice Quartz" },
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      reason,
    });
    // A rejection is final: no approval, no deployment, and a second rejection changes nothing.
    expect(await store.approve(id, requester)).toBe("already-rejected");
    expect(await store.consume(id, requester)).toBe("rejected");
    expect(await store.request(id, requester)).toBe("rejected");
    expect(await store.reject(id, requester, "another reason")).toBe("rejected");
    expect((await store.status(id))?.rejection?.reason).toBe(reason);
    expect(await store.reject(release(), requester, reason)).toBe("unknown");
  });

  it("keep an approval from being rejected, before and after its deployment", async () => {
    const { ledger } = await makeLedger();
    const store = approvalStore(ledger);
    const id = release();
    await requested(store, id, DETAILS);
    expect(await store.approve(id, requester)).toBe("approved");
    expect(await store.reject(id, requester, "too late")).toBe("already-approved");
    expect(await store.consume(id, requester)).toBe("deployed");
    expect(await store.reject(id, requester, "too late")).toBe("already-deployed");
    expect((await store.status(id))?.state).toBe("deployed");
  });

  it("refuse a record moved to another release: unknown there, and logged without its content", async () => {
    const { ledger } = await makeLedger();
    const { capture, logger } = logged();
    const store = approvalStore(ledger, { logger });
    const [id, other] = [release(), release()];
    await requested(store, id, DETAILS);
    await store.approve(id, requester);
    await ledger.add(other, (await ledger.get(id)) as string, 60_000);

    expect(await store.status(other)).toBeUndefined();
    expect(await store.approve(other, requester)).toBe("unknown");
    expect(await store.consume(other, requester)).toBe("lost");
    await expect(store.ask(other, DETAILS)).rejects.toThrow(/requested by another user/);
    expect(await store.request(other, requester)).toBe("lost");
    expect(await store.consume(id, requester)).toBe("deployed");

    const refusals = capture.lines().filter((line) => line.level === 40);
    expect(refusals).toHaveLength(5);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({
        release: other,
        reason: "seal",
        msg: "a stored approval did not open; it counts as absent",
      });
    }
    for (const clear of [...IN_CLEAR, "v1."]) expect(capture.text()).not.toContain(clear);
  });

  it("do not open under other keys, and open under a ring that still holds the old key", async () => {
    const { ledger } = await makeLedger();
    const oldKey = randomBytes(32);
    const before = approvalStore(ledger, { codec: new AesGcmRequestStateCodec([oldKey]) });
    const id = release();
    await requested(before, id, DETAILS);
    const stranger = approvalStore(ledger, { codec: new AesGcmRequestStateCodec([randomBytes(32)]) });
    expect(await stranger.status(id)).toBeUndefined();
    const rotated = approvalStore(ledger, {
      codec: new AesGcmRequestStateCodec([randomBytes(32), oldKey]),
    });
    expect((await rotated.status(id))?.state).toBe("pending");
  });
});

describe("approvals in Redis", () => {
  it("keep the expiry of their request through every step", async () => {
    const { ledger, pttl } = await redisLedger();
    const store = approvalStore(ledger, { ttlMs: 600_000 });
    const id = release();
    await requested(store, id, DETAILS);
    await store.approve(id, requester);
    expect(await store.consume(id, requester)).toBe("deployed");
    const left = await pttl(id);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(600_000);
  });

  it("keep the deployment record, sealed, long after the approval it consumed", async () => {
    const { ledger, pttl } = await redisLedger();
    const store = approvalStore(ledger, { ttlMs: 600_000 });
    const id = release();
    await requested(store, id, DETAILS);
    await store.approve(id, requester);
    expect(await store.consume(id, requester)).toBe("deployed");
    const sealed = (await ledger.get(`${id}/deployment`)) as string;
    expect(sealed.startsWith("v1.")).toBe(true);
    for (const clear of IN_CLEAR) expect(sealed).not.toContain(clear);
    // Neither record opens as the other: a deployment record copied over the approval is no approval.
    expect(await ledger.swap(id, (await ledger.get(id)) as string, sealed)).toBe(true);
    expect(await store.approve(id, requester)).toBe("already-deployed");
    const left = await pttl(`${id}/deployment`);
    expect(left).toBeGreaterThan(DEPLOYMENT_TTL_MS - 60_000);
    expect(left).toBeLessThanOrEqual(DEPLOYMENT_TTL_MS);
  });
});
