import { createServer, type Server as HttpServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.js";
import type { Tool } from "../protocol/schemas/tools.js";
import type { Server } from "../server/server.js";
import { createNodeHandler, type HttpHandlerOptions } from "../server/transport/http-server.js";
import { mcpHeaders } from "./messages.js";
import { assertServerMessage, WireSchemaError } from "./wire-schema.js";

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:53211/mcp`. */
  url: string;
  http: HttpServer;
  close(): Promise<void>;
}

/** Serves `server` with `createNodeHandler` on 127.0.0.1, an ephemeral port, at `/mcp`. */
export async function startHttpServer(
  server: Server,
  options: HttpHandlerOptions = {},
): Promise<RunningHttpServer> {
  const handle = createNodeHandler(server, options);
  const http = createServer((req, res) => {
    void handle(req, res);
  });
  // fetch reuses idle connections; past Node's 5 s keep-alive the server may close one just as a
  // test's next request goes out on it, which a suite stalled by a busy machine otherwise hits.
  http.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    http,
    close: () => closeHttp(http, server),
  };
}

export async function closeHttp(http: HttpServer, server?: Server): Promise<void> {
  server?.close();
  http.closeAllConnections();
  await new Promise<void>((resolve, reject) => http.close((error) => (error ? reject(error) : resolve())));
}

/** One server reply to one POST, with every JSON-RPC message in it already validated. */
export interface WireReply {
  status: number;
  headers: Headers;
  contentType: string | undefined;
  body: string;
  /** Each message of the body: one for application/json, one per event for text/event-stream. */
  messages: unknown[];
}

function mediaType(headers: Headers): string | undefined {
  return headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
}

/** The `data` payloads of a complete SSE body, comments (keep-alives) skipped. */
export function sseEvents(text: string): string[] {
  const events: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length > 0) events.push(data.join("\n"));
  }
  return events;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new WireSchemaError(`the server sent ${where} that is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * Reads and validates a whole reply. `method` is the method of the request it answers (undefined when
 * the request was not readable), used to pick the result type.
 */
export async function readReply(response: Response, method: string | undefined): Promise<WireReply> {
  const body = await response.text();
  const contentType = mediaType(response.headers);
  const messages: unknown[] = [];
  if (contentType === "text/event-stream") {
    for (const event of sseEvents(body)) messages.push(parseJson(event, "an SSE event"));
  } else if (body !== "") {
    if (contentType !== "application/json") {
      throw new WireSchemaError(`the server answered ${response.status} with a ${contentType} body: ${body}`);
    }
    messages.push(parseJson(body, "a body"));
  }
  for (const message of messages) assertServerMessage(message, method);
  return { status: response.status, headers: response.headers, contentType, body, messages };
}

export interface PostOptions {
  /** Replaces (or, with `undefined`, removes) headers of the correct set. Names are lower-case. */
  headers?: Record<string, string | undefined>;
  /** Whose `x-mcp-header` annotations become `Mcp-Param-*` headers. */
  tool?: Tool;
  signal?: AbortSignal;
}

function headersFor(
  message: JsonRpcRequest | JsonRpcNotification,
  options: PostOptions,
): Record<string, string> {
  const headers = mcpHeaders(message, options.tool);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return headers;
}

/** POSTs one JSON-RPC message with the headers a correct client sends (minus `options` changes). */
export async function post(
  url: string,
  message: JsonRpcRequest | JsonRpcNotification,
  options: PostOptions = {},
): Promise<WireReply> {
  const init: RequestInit = {
    method: "POST",
    headers: headersFor(message, options),
    body: JSON.stringify(message),
  };
  if (options.signal) init.signal = options.signal;
  const response = await fetch(url, init);
  const reply = await readReply(response, "id" in message ? message.method : undefined);
  if ("id" in message) {
    for (const m of reply.messages) {
      const id = (m as { id?: unknown }).id;
      if (id !== undefined && id !== message.id) {
        throw new WireSchemaError(`a response to request ${message.id} carries id ${JSON.stringify(id)}`);
      }
    }
  }
  return reply;
}

/** Sends anything at all (bad bodies, wrong methods); the reply is validated like any other. */
export async function send(url: string, init: RequestInit, method?: string): Promise<WireReply> {
  return readReply(await fetch(url, init), method);
}

/** The final JSON-RPC response of a reply (the last SSE event, or the JSON body). */
export function responseOf(reply: WireReply): JsonRpcResponse {
  const last = reply.messages.at(-1);
  if (
    last === undefined ||
    !(typeof last === "object" && last !== null && ("result" in last || "error" in last))
  ) {
    throw new Error(`the reply (${reply.status}) ends with no JSON-RPC response: ${reply.body}`);
  }
  return last as JsonRpcResponse;
}

/** The notifications of an SSE reply, in order. */
export function notificationsOf(reply: WireReply): JsonRpcNotification[] {
  return reply.messages.filter(
    (m): m is JsonRpcNotification => typeof m === "object" && m !== null && "method" in m,
  );
}

export function resultOf(reply: WireReply): Record<string, unknown> {
  const response = responseOf(reply);
  if ("error" in response) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result;
}

export function errorOf(reply: WireReply): { code: number; message: string; data?: unknown } {
  const response = responseOf(reply);
  if (!("error" in response)) throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response.error;
}

/**
 * A long-lived SSE reply read event by event (subscriptions/listen). Each message is validated as it
 * arrives; `close()` disconnects like a client that goes away.
 */
export class SseReader {
  readonly status: number;
  readonly headers: Headers;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #controller: AbortController;
  readonly #method: string;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #queue: unknown[] = [];

  private constructor(response: Response, controller: AbortController, method: string) {
    this.status = response.status;
    this.headers = response.headers;
    if (!response.body) throw new Error("the SSE reply has no body");
    this.#reader = response.body.getReader();
    this.#controller = controller;
    this.#method = method;
  }

  static async open(url: string, request: JsonRpcRequest, options: PostOptions = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, {
      method: "POST",
      headers: headersFor(request, options),
      body: JSON.stringify(request),
      signal: controller.signal,
    });
    if (mediaType(response.headers) !== "text/event-stream") {
      const reply = await readReply(response, request.method);
      throw new Error(`expected an SSE stream, got ${reply.status}: ${reply.body}`);
    }
    return new SseReader(response, controller, request.method);
  }

  /** The next message on the stream; undefined once the server ended it. */
  async next(): Promise<unknown> {
    for (;;) {
      const queued = this.#queue.shift();
      if (queued !== undefined) return queued;
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
      const cut = this.#buffer.lastIndexOf("\n\n");
      if (cut < 0) continue;
      const complete = this.#buffer.slice(0, cut + 2);
      this.#buffer = this.#buffer.slice(cut + 2);
      for (const event of sseEvents(complete)) {
        const message = parseJson(event, "an SSE event");
        assertServerMessage(message, this.#method);
        this.#queue.push(message);
      }
    }
  }

  close(): void {
    this.#controller.abort();
  }
}

/** What the server answered to a request whose body it was not sent in full. */
export interface EarlyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * POSTs the head and `part` of a body, then waits for the answer without ever sending the rest
 * (chunked when `declaredLength` is undefined): it resolves only for a server that answers without
 * the whole body, so a server that waits for it fails the test by its timeout.
 */
export function answerBeforeBodyEnds(
  url: string,
  headers: Record<string, string>,
  part: string,
  declaredLength?: number,
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers:
        declaredLength === undefined ? headers : { ...headers, "content-length": String(declaredLength) },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => {
        outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    outgoing.write(part);
  });
}
