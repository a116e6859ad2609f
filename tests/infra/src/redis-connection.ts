import { connect } from "node:net";

/**
 * One connection to a local Redis that answers each command with its own reply, in order, and keeps
 * many in flight at once. The durability measurement counts a write as acknowledged only when its
 * reply has arrived, and checks the server between two writes without starting a process: a SIGKILL
 * must land while Redis still holds what it has just acknowledged.
 */
export interface RedisConnection {
  /** The reply as text (a status, an integer, a bulk string; "" for a nil); an error reply rejects. */
  command(args: readonly string[]): Promise<string>;
  close(): void;
}

interface Reply {
  text: string;
  error: boolean;
  /** Bytes the reply took in the stream. */
  length: number;
}

/** The first whole reply in `received`, or undefined until all of it has arrived. */
function firstReply(received: Buffer): Reply | undefined {
  const end = received.indexOf("\r\n");
  if (end < 0) return undefined;
  const type = String.fromCharCode(received[0]!);
  const line = received.toString("utf8", 1, end);
  if (type === "+" || type === ":") return { text: line, error: false, length: end + 2 };
  if (type === "-") return { text: line, error: true, length: end + 2 };
  if (type === "$") {
    const size = Number(line);
    if (size < 0) return { text: "", error: false, length: end + 2 };
    const start = end + 2;
    if (received.length < start + size + 2) return undefined;
    return { text: received.toString("utf8", start, start + size), error: false, length: start + size + 2 };
  }
  // Arrays are not needed here; the measurement asks for them through redis-cli.
  throw new Error(`unexpected reply type ${JSON.stringify(type)}`);
}

function encode(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join("")}`;
}

/** Connects to the Redis on 127.0.0.1:`port`, authenticating first when `password` is given. */
export async function connectRedis(port: number, password: string | undefined): Promise<RedisConnection> {
  const socket = connect({ host: "127.0.0.1", port });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const waiting: { resolve(text: string): void; reject(error: Error): void }[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    socket.destroy();
    for (const next of waiting.splice(0)) next.reject(failure);
  };
  let received = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    try {
      for (let reply = firstReply(received); reply !== undefined; reply = firstReply(received)) {
        received = received.subarray(reply.length);
        const next = waiting.shift();
        if (next === undefined) throw new Error(`a reply no command asked for: ${reply.text}`);
        if (reply.error) next.reject(new Error(reply.text));
        else next.resolve(reply.text);
      }
    } catch (error) {
      fail(error as Error);
    }
  });
  socket.on("error", fail);
  socket.on("close", () => fail(new Error(`connection to Redis on port ${port} closed`)));
  const connection: RedisConnection = {
    command(args) {
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise<string>((resolve, reject) => {
        waiting.push({ resolve, reject });
        socket.write(encode(args));
      });
    },
    close() {
      fail(new Error("connection closed"));
    },
  };
  if (password !== undefined) await connection.command(["AUTH", password]);
  return connection;
}
