import { createClient } from "redis";

/** Sends one command to the server at `url` on a connection of its own, for setting up and inspecting it. */
export async function redisCommand(url: string, args: readonly string[]): Promise<unknown> {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  try {
    return await client.sendCommand([...args]);
  } finally {
    client.destroy();
  }
}

/** Asks `check` again every 50 ms until it is true; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
