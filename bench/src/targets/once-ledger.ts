import { createNodeHandler } from "@roundtrip/sdk";
import { MemoryOnceStore } from "@roundtrip/sdk/server";
import { type Listening, listenNode } from "./listen.js";
import { benchMcpServer } from "./roundtrip-mcp.js";

/** greet as a once-tool on one process's ledger. */
export function onceInMemory(): Promise<Listening> {
  const handle = createNodeHandler(benchMcpServer({ once: new MemoryOnceStore() }));
  return listenNode((req, res) => void handle(req, res));
}

/**
 * greet as a once-tool on a real redis-server on loopback, started for this server process and
 * stopped with it: what a fleet's ledger costs each flow, in CPU and in Redis commands.
 */
export async function onceInRedis(): Promise<Listening> {
  // Only this row's process loads a Redis client and the server's launcher: the in-memory row's peak
  // RSS carries none of it.
  const [{ RedisOnceStore }, { ownRedis }] = await Promise.all([
    import("@roundtrip/sdk/redis"),
    import("./own-redis.js"),
  ]);
  const redis = await ownRedis();
  const client = redis.client;
  const handle = createNodeHandler(benchMcpServer({ once: new RedisOnceStore({ client }) }));
  const listening = await listenNode((req, res) => void handle(req, res));
  return {
    ...listening,
    redisCommands: redis.counter,
    async close() {
      await listening.close();
      await redis.close();
    },
  };
}
