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
  const [{ RedisOnceStore }, { RedisServer }, { createClient }, { RedisCommandCounter }] = await Promise.all([
    import("@roundtrip/sdk/redis"),
    import("@roundtrip/test-services/redis-server"),
    import("redis"),
    import("./redis-command-counter.js"),
  ]);
  const redis = await RedisServer.start();
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  const counter = await RedisCommandCounter.connect(redis.url);
  const handle = createNodeHandler(benchMcpServer({ once: new RedisOnceStore({ client }) }));
  const listening = await listenNode((req, res) => void handle(req, res));
  return {
    ...listening,
    redisCommands: counter,
    async close() {
      await listening.close();
      await counter.close();
      await client.close();
      await redis.stop();
    },
  };
}
