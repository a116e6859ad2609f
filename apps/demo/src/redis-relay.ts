// One instance's own way to the fleet's Redis: a TCP relay on loopback that the instance's REDIS_URL
// names. The demo's instances run in its own process, where no signal can kill one alone; cutting the
// relay is what the death of an instance's process does to Redis and to the rest of the fleet: every
// connection it had drops at once, none is closed politely, and no new one gets through.
import { createServer, type Socket, connect as tcpConnect } from "node:net";

export interface RedisRelay {
  /** The Redis URL for the instance: the fleet's, with the relay's port. */
  url: string;
  /**
   * Drops every connection through the relay at once and refuses every new one. It keeps its port,
   * so no relay started later can get it and let the cut instance's reconnecting clients through.
   */
  cut(): void;
  close(): Promise<void>;
}

export async function startRedisRelay(redisUrl: string): Promise<RedisRelay> {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A dropped peer is the point of the relay, not an error of the demo's.
    socket.on("error", () => {});
  };
  let cut = false;
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    track(client);
    const upstream = tcpConnect({ host: target.hostname, port: Number(target.port) });
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the Redis relay has no TCP port");
  const url = new URL(redisUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.href.replace(/\/$/, ""),
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
