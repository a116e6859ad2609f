import { RedisOnceStore } from "@roundtrip/sdk/redis";
import { createCluster, createSentinel } from "redis";

// Redis Cluster: the seed nodes; node-redis finds the rest and routes each command to its slot.
const cluster = createCluster({
  rootNodes: (process.env.REDIS_CLUSTER_URLS ?? "").split(",").map((url) => ({ url })),
  defaults: { disableOfflineQueue: true },
});
cluster.on("error", (error) => console.error("redis cluster:", error.message));
await cluster.connect();
export const onCluster = new RedisOnceStore({ client: cluster });

// Sentinel: the Sentinels and the name they watch; node-redis follows the primary through failovers.
const sentinel = createSentinel({
  name: process.env.REDIS_SENTINEL_MASTER ?? "mymaster",
  sentinelRootNodes: [{ host: "sentinel-1", port: 26379 }],
  nodeClientOptions: { disableOfflineQueue: true },
});
sentinel.on("error", (error) => console.error("redis sentinel:", error.message));
await sentinel.connect();
export const onSentinel = new RedisOnceStore({ client: sentinel });
