import { RedisServer, waitFor } from "@roundtrip/test-services";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalUnconfirmedError, RedisApprovalLedger } from "../src/approvals/redis-approval-ledger.js";

/**
 * REDIS_REPLICA_ACKS holds approvals to the once-store's rule: a change counts only once a replica
 * has it, so an approval a person saw recorded survives a failover to that replica. Real redis-server
 * primary and replica (the same program: a replica loads its primary's RDB).
 */
let primary: RedisServer;
let replica: RedisServer;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  primary = await RedisServer.start({ config: ["--appendonly", "no"] });
  replica = await RedisServer.start({
    config: ["--appendonly", "no", "--replicaof", "127.0.0.1", String(primary.port)],
  });
  client = createClient({ url: primary.url, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  await waitFor("the replica to acknowledge a write", async () => {
    await client.set("acks:synced", "1");
    return Number(await client.sendCommand(["WAIT", "1", "100"])) === 1;
  });
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await replica?.stop();
  await primary?.stop();
});

const ACKS = { replicas: 1, timeoutMs: 300 };
// A loaded machine can delay a healthy replica's ack past 300 ms: the changes it must confirm wait longer.
const PATIENT_ACKS = { replicas: 1, timeoutMs: 10_000 };

describe("RedisApprovalLedger with replicaAcks", () => {
  it("counts a change once the replica has it, and refuses one no replica acknowledged, naming the setting", async () => {
    const healthy = new RedisApprovalLedger({ client, prefix: "acks:approval:", replicaAcks: PATIENT_ACKS });
    expect(await healthy.add("rel-1", "asked", 60_000)).toBeUndefined();
    expect(await healthy.swap("rel-1", "asked", "approved")).toBe(true);
    const ledger = new RedisApprovalLedger({ client, prefix: "acks:approval:", replicaAcks: ACKS });
    replica.freeze();
    try {
      const refused = await ledger.swap("rel-1", "approved", "deployed").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApprovalUnconfirmedError);
      expect((refused as Error).message).toBe(
        "only 0 of the 1 Redis replicas required (REDIS_REPLICA_ACKS) acknowledged the approval's write within 300 ms; check the replicas' health and replication lag, then try again",
      );
      await expect(ledger.add("rel-2", "asked", 60_000)).rejects.toThrow(ApprovalUnconfirmedError);
      // The refused swap is on the primary all the same (what the replica lacks is what a failover loses).
      // A change that changed nothing stands, replicas or not: the record already there, a swap that missed.
      expect(await ledger.add("rel-1", "other", 60_000)).toBe("deployed");
      expect(await ledger.swap("rel-1", "asked", "approved")).toBe(false);
    } finally {
      replica.thaw();
    }
  });
});
