import { connect, type Socket } from "node:net";
import type { WireRequest } from "../wire/mcp-request.js";
import type { RawReply } from "../wire/reply.js";
import { ResponseParser } from "./response-parser.js";

/** Loopback only: the harness never sends load anywhere else. */
const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export interface PostClient {
  post(message: WireRequest): Promise<RawReply>;
  close(): void;
}

interface Pending {
  resolve(reply: RawReply): void;
  reject(error: Error): void;
}

/** One keep-alive connection carrying one request at a time. */
class Connection {
  readonly #socket: Socket;
  readonly #parser = new ResponseParser();
  #pending: Pending | undefined;
  #closed = false;
  #reserved = false;

  constructor(host: string, port: number, timeoutMs: number, onGone: (connection: Connection) => void) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#socket.setTimeout(timeoutMs, () => this.#fail(new Error(`no answer in ${timeoutMs} ms`)));
    this.#socket.on("data", (chunk: Buffer) => this.#read(chunk));
    this.#socket.on("error", (error) => this.#fail(error));
    this.#socket.on("close", () => {
      this.#closed = true;
      this.#fail(new Error("the server closed the connection"));
      onGone(this);
    });
  }

  /** Claims the connection for one request, if it is free; it is free again once that is answered. */
  reserve(): boolean {
    if (this.#closed || this.#reserved) return false;
    this.#reserved = true;
    return true;
  }

  send(head: string, body: string, pending: Pending): void {
    this.#pending = pending;
    this.#socket.write(head + body);
  }

  close(): void {
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    let reply: ReturnType<ResponseParser["push"]>;
    try {
      reply = this.#parser.push(chunk);
    } catch (error) {
      this.#fail(error as Error);
      this.#socket.destroy();
      return;
    }
    if (reply === undefined) return;
    const pending = this.#pending;
    this.#pending = undefined;
    if (reply.keepAlive) this.#reserved = false;
    else this.#socket.end();
    pending?.resolve(reply.reply);
  }

  #fail(error: Error): void {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
    if (pending) this.#socket.destroy();
  }
}

/**
 * Raw HTTP/1.1 POSTs over keep-alive connections, one per concurrent flow, written and parsed by
 * hand. node:http's client costs the driver more CPU per request than a small server spends
 * answering it, and on two cores the driver's cost is taken from the server's share; this client
 * does the least a correct HTTP/1.1 client must, does no MCP work of its own, and so costs every
 * target the same and favours neither SDK.
 */
export function createPostClient(
  host: string,
  port: number,
  options: { sockets: number; timeoutMs: number; path?: string },
): PostClient {
  if (!LOOPBACK.test(host)) throw new Error(`refusing to send load to ${host}: loopback addresses only`);
  const startLine = `POST ${options.path ?? "/mcp"} HTTP/1.1\r\nhost: ${host}:${port}\r\n`;
  const connections = new Set<Connection>();
  const waiting: Array<() => void> = [];
  const gone = (connection: Connection): void => {
    connections.delete(connection);
    waiting.shift()?.();
  };
  const idle = (): Connection | undefined => {
    for (const connection of connections) if (connection.reserve()) return connection;
    if (connections.size >= options.sockets) return undefined;
    const connection = new Connection(host, port, options.timeoutMs, gone);
    connections.add(connection);
    connection.reserve();
    return connection;
  };
  const acquire = async (): Promise<Connection> => {
    for (;;) {
      const connection = idle();
      if (connection) return connection;
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const release = (): void => {
    waiting.shift()?.();
  };
  return {
    post: async (message) => {
      const connection = await acquire();
      let head = startLine;
      for (const name in message.headers) head += `${name}: ${message.headers[name]}\r\n`;
      try {
        return await new Promise<RawReply>((resolve, reject) =>
          connection.send(`${head}\r\n`, message.body, { resolve, reject }),
        );
      } finally {
        release();
      }
    },
    close: () => {
      for (const connection of connections) connection.close();
      connections.clear();
    },
  };
}
