import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { Client, type ClientOptions } from "../../../client/client.js";
import type { ClientTransport, TransportRequestOptions } from "../../../client/transport/client-transport.js";
import { HttpClientTransport } from "../../../client/transport/http-client.js";
import { MemoryClientTransport } from "../../../client/transport/memory-client.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../../protocol/jsonrpc.js";
import { createNodeHandler } from "../../transport/http-server.js";
import type { McpServer } from "../mcp-server.js";

/** Every suite runs over both: real HTTP on an ephemeral port, and in memory through handleRequest. */
export const WIRES = ["http", "memory"] as const;
export type Wire = (typeof WIRES)[number];

export interface Exchange {
  request: JsonRpcRequest;
  response: JsonRpcResponse;
}

/** Passes every request through and keeps a copy of it and its response, as they crossed. */
class RecordingTransport implements ClientTransport {
  readonly exchanges: Exchange[] = [];
  readonly #inner: ClientTransport;

  constructor(inner: ClientTransport) {
    this.#inner = inner;
    inner.onNotification = (message) => this.onNotification?.(message);
  }

  get kind(): string {
    return this.#inner.kind;
  }

  onNotification?: (notification: JsonRpcNotification) => void;

  async request(request: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse> {
    const response = await this.#inner.request(request, options);
    this.exchanges.push(JSON.parse(JSON.stringify({ request, response })) as Exchange);
    return response;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

export interface Connection {
  readonly client: Client;
  /** The legs of one carrier method (tools/call, prompts/get, resources/read), in order. */
  legs(method: string): Exchange[];
  close(): Promise<void>;
}

async function listen(mcp: McpServer): Promise<{ url: string; http: HttpServer }> {
  const handler = createNodeHandler(mcp.server);
  const http = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, http };
}

/** A real Client connected to the server over the given wire, recording what crosses it. */
export async function connect(mcp: McpServer, wire: Wire, options: ClientOptions = {}): Promise<Connection> {
  let http: HttpServer | undefined;
  let inner: ClientTransport;
  if (wire === "http") {
    const started = await listen(mcp);
    http = started.http;
    inner = new HttpClientTransport(started.url);
  } else {
    inner = new MemoryClientTransport(mcp.server);
  }
  const recorder = new RecordingTransport(inner);
  const client = new Client(recorder, options);
  return {
    client,
    legs: (method) => recorder.exchanges.filter((exchange) => exchange.request.method === method),
    async close() {
      await client.close();
      if (http) {
        const server = http;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** Connects like `connect`, and closes every connection it made after each test. */
export function connectionsClosedAfterEach(): typeof connect {
  const open: Connection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.close()));
  });
  return async (mcp, wire, options) => {
    const connection = await connect(mcp, wire, options);
    open.push(connection);
    return connection;
  };
}

/** The result a response carries; fails the test with the error when it carries one instead. */
export function resultOf(response: JsonRpcResponse | undefined): Record<string, unknown> {
  if (!response) throw new Error("no response was recorded");
  if ("error" in response) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result;
}
