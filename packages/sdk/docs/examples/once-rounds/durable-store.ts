import { ForgetfulStoreError, RedisOnceStore, requireDurableRedis } from "@roundtrip/sdk/redis";
import { createClient } from "redis";

const redis = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
redis.on("error", (error) => console.error("redis:", error.message));
await redis.connect();

// Before serving once-rounds: refuse a Redis that says it can forget a claim.
try {
  await requireDurableRedis(redis, { allowForgetful: process.env.ALLOW_FORGETFUL_STORE === "1" });
} catch (error) {
  if (!(error instanceof ForgetfulStoreError)) throw error;
  console.error(error.message); // e.g. "... maxmemory-policy is volatile-lru: set it to noeviction, ..."
  process.exit(2);
}

export const store = new RedisOnceStore({ client: redis });
