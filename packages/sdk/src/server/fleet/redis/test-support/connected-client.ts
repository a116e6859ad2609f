import { createClient, createCluster, createSentinel } from "redis";

// Reconnects quick enough for a test: 10 ms doubling to 200 ms.
const reconnectStrategy = (retries: number) => Math.min(10 * 2 ** retries, 200);

/**
 * A node-redis client on `url` as the README advises and a deployed instance has one: no offline
 * queue, errors listened to, and reconnects quick enough for a test.
 */
export async function connectedClient(url: string) {
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy } });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** A Redis Cluster client from its seed nodes, its node connections set up as `connectedClient`'s. */
export async function connectedCluster(urls: readonly string[]) {
  const client = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: { disableOfflineQueue: true, socket: { reconnectStrategy } },
  });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** A client of the primary that Sentinels at `sentinels` name `name`, set up as `connectedClient`'s. */
export async function connectedSentinel(name: string, sentinels: { host: string; port: number }[]) {
  const client = createSentinel({
    name,
    sentinelRootNodes: sentinels,
    nodeClientOptions: { disableOfflineQueue: true, socket: { reconnectStrategy } },
  });
  client.on("error", () => {});
  await client.connect();
  return client;
}
