import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisCommand, waitFor } from "./redis-command.js";
import { type RedisProgram, RedisServer } from "./redis-server.js";

/** A field of one entry Sentinel lists: node-redis gives it as an object, RESP2 as name-value pairs. */
function fieldOf(entry: unknown, name: string): unknown {
  if (Array.isArray(entry)) return entry[entry.indexOf(name) + 1];
  return (entry as Record<string, unknown>)[name];
}

/**
 * A real Sentinel setup on 127.0.0.1: one primary, one replica of it, and `sentinels` Sentinel
 * processes (default 1) watching them under `name`, nothing persisted. Started when the Sentinels know
 * the replica and it has synced. `failover()` promotes the replica, as `SENTINEL FAILOVER` does.
 */
export class RedisSentinelGroup {
  readonly name: string;
  readonly servers: readonly [RedisServer, RedisServer];
  readonly sentinels: readonly RedisServer[];
  readonly #dir: string;

  private constructor(
    name: string,
    servers: [RedisServer, RedisServer],
    sentinels: RedisServer[],
    dir: string,
  ) {
    this.name = name;
    this.servers = servers;
    this.sentinels = sentinels;
    this.#dir = dir;
  }

  static async start(
    options: { program?: RedisProgram; sentinels?: number; name?: string } = {},
  ): Promise<RedisSentinelGroup> {
    const name = options.name ?? "roundtrip";
    const count = options.sentinels ?? 1;
    const program = options.program ?? "redis-server";
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-sentinel-"));
    const primary = await RedisServer.start({ program });
    const sentinels: RedisServer[] = [];
    const started: RedisServer[] = [primary];
    try {
      const replica = await RedisServer.start({
        program,
        config: ["--replicaof", "127.0.0.1", String(primary.port)],
      });
      started.push(replica);
      const group = new RedisSentinelGroup(name, [primary, replica], sentinels, dir);
      const quorum = Math.floor(count / 2) + 1;
      for (let i = 0; i < count; i++) {
        const configFile = join(dir, `sentinel-${i}.conf`);
        await writeFile(
          configFile,
          [
            `sentinel monitor ${name} 127.0.0.1 ${primary.port} ${quorum}`,
            `sentinel down-after-milliseconds ${name} 2000`,
            `sentinel failover-timeout ${name} 10000`,
            "",
          ].join("\n"),
        );
        const sentinel = await RedisServer.start({ program, configFile, config: ["--sentinel"] });
        sentinels.push(sentinel);
      }
      await group.#settled(primary, replica);
      return group;
    } catch (error) {
      for (const server of [...sentinels, ...started]) await server.stop();
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The Sentinels' addresses, as `createSentinel({ sentinelRootNodes })` takes them. */
  get sentinelNodes(): { host: string; port: number }[] {
    return this.sentinels.map((sentinel) => ({ host: "127.0.0.1", port: sentinel.port }));
  }

  /** The server the Sentinels name as primary now. */
  async primary(): Promise<RedisServer> {
    const sentinel = this.sentinels[0];
    if (sentinel === undefined) throw new Error("the group has no Sentinel");
    const [, port] = (await redisCommand(sentinel.url, [
      "SENTINEL",
      "GET-MASTER-ADDR-BY-NAME",
      this.name,
    ])) as [string, string];
    const primary = this.servers.find((server) => String(server.port) === port);
    if (primary === undefined) throw new Error(`the Sentinels name port ${port}, which is not in the group`);
    return primary;
  }

  /**
   * Promotes the replica (`SENTINEL FAILOVER`), and returns once every Sentinel names it, it answers
   * as a primary, and the old primary has synced from it as its replica.
   */
  async failover(): Promise<RedisServer> {
    const before = await this.primary();
    const after = this.servers.find((server) => server !== before) as RedisServer;
    const [sentinel] = this.sentinels as [RedisServer];
    await redisCommand(sentinel.url, ["SENTINEL", "FAILOVER", this.name]);
    for (const each of this.sentinels) {
      await waitFor(`Sentinel ${each.port} to name ${after.port} the primary`, async () => {
        const [, port] = (await redisCommand(each.url, [
          "SENTINEL",
          "GET-MASTER-ADDR-BY-NAME",
          this.name,
        ])) as [string, string];
        return port === String(after.port);
      });
    }
    await this.#settled(after, before);
    return after;
  }

  async #settled(primary: RedisServer, replica: RedisServer): Promise<void> {
    await waitFor(`${primary.port} to answer as the primary`, async () => {
      const [role] = (await redisCommand(primary.url, ["ROLE"])) as [string];
      return role === "master";
    });
    await waitFor(`${replica.port} to sync from ${primary.port}`, async () => {
      const info = String(await redisCommand(replica.url, ["INFO", "replication"]));
      return info.includes(`master_port:${primary.port}`) && info.includes("master_link_status:up");
    });
    for (const sentinel of this.sentinels) {
      await waitFor(`Sentinel ${sentinel.port} to know the replica ${replica.port}`, async () => {
        const replicas = (await redisCommand(sentinel.url, ["SENTINEL", "REPLICAS", this.name])) as unknown[];
        return replicas.some(
          (entry) => fieldOf(entry, "port") === String(replica.port) && fieldOf(entry, "flags") === "slave",
        );
      });
    }
  }

  async stop(): Promise<void> {
    for (const server of [...this.sentinels, ...this.servers]) await server.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
