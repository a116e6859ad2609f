import { createClient } from "redis";
import { parseCommandStats, type RedisCommandCounts } from "../proc/redis-counts.js";

/** What a target that owns a redis-server lets the harness do with it. */
export interface RedisCommandWindow {
  /** Zeroes the server's command counts: the measured window starts. */
  reset(): Promise<void>;
  /** The commands run since `reset`, the harness's own left out. */
  read(): Promise<RedisCommandCounts>;
}

function takeOff(counts: Record<string, number>, command: string, calls: number): void {
  const left = (counts[command] ?? 0) - calls;
  if (left > 0) counts[command] = left;
  else delete counts[command];
}

/** The little of a node-redis client the counter uses. */
interface CountingClient {
  sendCommand(args: string[]): Promise<unknown>;
  close(): Promise<unknown>;
}

/**
 * Counts on its own connection, so the target's clients carry nothing for the harness. Its reset is
 * `CONFIG RESETSTAT`, which Redis counts once after zeroing (as `config|resetstat`, `config` before
 * Redis 7); its read is `INFO commandstats`, whose reply is made before it counts itself, so only
 * earlier reads show. Taking those calls off leaves exactly what the target sent and what its scripts
 * ran.
 */
export class RedisCommandCounter implements RedisCommandWindow {
  readonly #client: CountingClient;
  /** INFO commands this counter sent since its reset. */
  #reads = 0;

  private constructor(client: CountingClient) {
    this.#client = client;
  }

  static async connect(url: string): Promise<RedisCommandCounter> {
    const client = createClient({ url, disableOfflineQueue: true });
    client.on("error", () => {});
    await client.connect();
    return new RedisCommandCounter(client);
  }

  async reset(): Promise<void> {
    this.#reads = 0;
    await this.#client.sendCommand(["CONFIG", "RESETSTAT"]);
  }

  async read(): Promise<RedisCommandCounts> {
    const earlier = this.#reads++;
    const counts = parseCommandStats(String(await this.#client.sendCommand(["INFO", "commandstats"])));
    takeOff(counts, "config|resetstat" in counts ? "config|resetstat" : "config", 1);
    takeOff(counts, "info", earlier);
    return counts;
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
