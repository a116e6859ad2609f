import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createCluster } from "redis";
import { describe, expect, it } from "vitest";
import {
  forksOf,
  RedisCluster,
  RedisSentinelGroup,
  RedisServer,
  redisCommand,
  waitFor,
} from "../src/index.js";

/**
 * Whether process `pid` can no longer run anything: it is gone, a zombie, or SIGKILL waits for it (the
 * kernel acts on it before the process runs another instruction).
 */
async function ending(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(\\S+)`, "m"))?.[1] ?? "";
  const sigkill = (mask: string) => mask !== "" && (BigInt(`0x${mask}`) & (1n << 8n)) !== 0n;
  return (
    status === "" || /^[ZX]/.test(field("State")) || sigkill(field("SigPnd")) || sigkill(field("ShdPnd"))
  );
}

describe.each(["redis-server", "valkey-server"] as const)("topologies of %s", (program) => {
  it("a single server answers, and says which server it is", async () => {
    const server = await RedisServer.start({ program });
    try {
      const info = String(await redisCommand(server.url, ["INFO", "server"]));
      expect(info).toContain(program === "valkey-server" ? "valkey_version" : "redis_version");
    } finally {
      await server.stop();
    }
  });

  it("stop() ends an AOF rewrite the server forked, and removes its folder", async () => {
    // Each key the rewrite writes waits a second: left alone, it writes into the folder until it next
    // reports to its parent and finds it gone.
    const server = await RedisServer.start({ program, config: ["--rdb-key-save-delay", "1000000"] });
    const keys = Array.from({ length: 100 }, (_, i) => [`k${i}`, "v"]).flat();
    await redisCommand(server.url, ["MSET", ...keys]);
    await redisCommand(server.url, ["BGREWRITEAOF"]);
    let forks: number[] = [];
    await waitFor("the AOF rewrite's fork", async () => {
      forks = await forksOf(server.pid);
      return forks.length > 0;
    });
    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    expect(await Promise.all(forks.map(ending))).not.toContain(false);
  });

  it("a server that exits at start says why, from its own log", async () => {
    // A cluster node on a port whose bus port (10000 higher) would be past 65535 refuses to start.
    const refused = RedisServer.start({ program, config: ["--cluster-enabled", "yes", "--port", "60001"] });
    await expect(refused).rejects.toThrow(
      new RegExp(`^${program} exited with 1: \\w+ port number too high\\. Cluster communication port`),
    );
  });

  it("a cluster of three masters covers every slot, and keys spread over all of them", async () => {
    const cluster = await RedisCluster.start({ program });
    try {
      const info = String(await redisCommand(cluster.urls[0] as string, ["CLUSTER", "INFO"]));
      expect(info).toContain("cluster_slots_assigned:16384");
      expect(info).toContain("cluster_size:3");
      const client = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
      client.on("error", () => {});
      await client.connect();
      try {
        for (let i = 0; i < 30; i++) await client.set(`k${i}`, "v");
        const counts = await Promise.all(
          cluster.nodes.map(async (node) => Number(await redisCommand(node.url, ["DBSIZE"]))),
        );
        expect(counts.every((count) => count > 0)).toBe(true);
        expect(counts.reduce((a, b) => a + b)).toBe(30);
      } finally {
        client.destroy();
      }
    } finally {
      await cluster.stop();
    }
  });

  it("a Sentinel group fails over to its replica, which then takes writes", async () => {
    const group = await RedisSentinelGroup.start({ program });
    try {
      const [first, second] = group.servers;
      expect(await group.primary()).toBe(first);
      await redisCommand(first.url, ["SET", "before", "1"]);
      expect(await group.failover()).toBe(second);
      expect(await group.primary()).toBe(second);
      expect(await redisCommand(second.url, ["GET", "before"])).toBe("1");
      expect(await redisCommand(second.url, ["SET", "after", "1"])).toBe("OK");
      await expect(redisCommand(first.url, ["SET", "after", "2"])).rejects.toThrow(/READONLY/);
    } finally {
      await group.stop();
    }
  });
});
