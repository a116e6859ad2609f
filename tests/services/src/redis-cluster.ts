import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { redisCommand, waitFor } from "./redis-command.js";
import { type RedisProgram, RedisServer } from "./redis-server.js";

const SLOTS = 16_384;

/**
 * A real Redis Cluster on 127.0.0.1: `masters` servers (default 3) with `--cluster-enabled yes`, the
 * 16384 slots split between them in even ranges, no replicas, nothing persisted. Started when every
 * node sees the cluster as `ok`.
 */
export class RedisCluster {
  readonly nodes: readonly RedisServer[];
  readonly #dir: string;
  /** Each node's cluster bus port, by node port. */
  readonly #busPorts = new Map<number, number>();

  private constructor(nodes: readonly RedisServer[], dir: string) {
    this.nodes = nodes;
    this.#dir = dir;
  }

  static async start(options: { program?: RedisProgram; masters?: number } = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-cluster-"));
    const nodes: RedisServer[] = [];
    const cluster = new RedisCluster(nodes, dir);
    try {
      for (let i = 0; i < masters; i++) {
        // The bus port is its own free port: by default it is the node's port plus 10000, which is past
        // 65535 (and refused) for a third of the ports the kernel hands out.
        const bus = await freePort();
        const config = [
          ...["--cluster-enabled", "yes", "--cluster-config-file", join(dir, `nodes-${i}.conf`)],
          ...["--cluster-port", String(bus)],
        ];
        const node = await RedisServer.start({ ...options, config });
        nodes.push(node);
        cluster.#busPorts.set(node.port, bus);
      }
      await cluster.#form();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** Seed URLs, as `createCluster({ rootNodes })` takes them. */
  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  async #form(): Promise<void> {
    const [first, ...rest] = this.nodes;
    if (first === undefined) throw new Error("a cluster needs at least one master");
    for (const [i, node] of this.nodes.entries()) {
      const from = Math.floor((SLOTS * i) / this.nodes.length);
      const to = Math.floor((SLOTS * (i + 1)) / this.nodes.length) - 1;
      await redisCommand(node.url, ["CLUSTER", "ADDSLOTSRANGE", String(from), String(to)]);
    }
    for (const node of rest) {
      const bus = String(this.#busPorts.get(node.port));
      await redisCommand(first.url, ["CLUSTER", "MEET", "127.0.0.1", String(node.port), bus]);
    }
    for (const node of this.nodes) {
      await waitFor(`node ${node.port} to see the cluster ok`, async () => {
        const info = String(await redisCommand(node.url, ["CLUSTER", "INFO"]));
        return info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${this.nodes.length}`);
      });
    }
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) await node.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
