import { RedisServer } from "@roundtrip/test-services/redis-server";
import { createClient } from "redis";

const connect = (url: string) => createClient({ url, disableOfflineQueue: true });

import { RedisCommandCounter } from "./redis-command-counter.js";

/** A redis-server started for one target process, the target's client on it, and its command counter. */
export interface OwnRedis {
  readonly url: string;
  readonly client: ReturnType<typeof connect>;
  readonly counter: RedisCommandCounter;
  /** Closes the counter and the client, then stops the server: after the target's own users of it. */
  close(): Promise<void>;
}

/**
 * What every Redis-backed target starts with: a real redis-server on loopback, stopped with the
 * target, one client that fails fast instead of queueing while Redis is away, and the connection the
 * harness counts commands on.
 */
export async function ownRedis(): Promise<OwnRedis> {
  const redis = await RedisServer.start();
  const client = connect(redis.url);
  client.on("error", () => {});
  await client.connect();
  const counter = await RedisCommandCounter.connect(redis.url);
  return {
    url: redis.url,
    client,
    counter,
    async close() {
      await counter.close();
      await client.close();
      await redis.stop();
    },
  };
}
