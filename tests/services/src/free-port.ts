import { createServer } from "node:net";

/**
 * A loopback port nothing listens on right now (the kernel picks it), for a server about to start. Not for
 * a server that does not run: the kernel gives this port out again; `refusedPort` is one it never does.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("could not pick a free port");
  return address.port;
}
