import type { AddressInfo } from "node:net";
import { connect, createServer, type Socket } from "node:net";

export interface HeldProxy {
  readonly url: string;
  /** How many connections arrived so far. */
  readonly arrived: () => number;
  /** Lets every held connection, and all later ones, through to the target. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy that accepts connections but holds them until released: a real endpoint that is slow to
 * answer, so the server's state before its KMS calls return can be observed without timing guesses.
 */
export async function heldProxy(target: string): Promise<HeldProxy> {
  const { hostname, port } = new URL(target);
  const held: Socket[] = [];
  const open = new Set<Socket>();
  let released = false;
  const forward = (socket: Socket) => {
    const upstream = connect(Number(port), hostname);
    open.add(upstream);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  };
  let count = 0;
  const server = createServer((socket) => {
    count++;
    open.add(socket);
    if (released) forward(socket);
    else held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    arrived: () => count,
    release() {
      released = true;
      for (const socket of held.splice(0)) forward(socket);
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
