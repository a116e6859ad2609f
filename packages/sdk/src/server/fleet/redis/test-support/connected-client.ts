import { createClient } from "redis";

/**
 * A node-redis client on `url` as the README advises and a deployed instance has one: no offline
 * queue, errors listened to, and reconnects quick enough for a test (10 ms doubling to 200 ms).
 */
export async function connectedClient(url: string) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries: number) => Math.min(10 * 2 ** retries, 200) },
  });
  client.on("error", () => {});
  await client.connect();
  return client;
}
