import { LATEST_LEGACY_PROTOCOL_VERSION } from "../../../protocol/versions.js";

/** Raw fetch for a 2025-era session, for the inputs a well-behaved client never sends. */

export const ACCEPT_BOTH = "application/json, text/event-stream";

export interface RawReply {
  status: number;
  headers: Headers;
  /** The JSON body, or the JSON-RPC messages of an SSE body. */
  messages: Record<string, unknown>[];
}

export function sseMessages(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

export async function rawPost(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const messages =
    text === "" ? [] : type.startsWith("text/event-stream") ? sseMessages(text) : [JSON.parse(text)];
  return { status: response.status, headers: response.headers, messages };
}

export function initializeMessage(
  protocolVersion = LATEST_LEGACY_PROTOCOL_VERSION,
  capabilities = {},
  id = 1,
) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "1" } },
  };
}

/** Opens a session the raw way; returns its id and the version the server chose. */
export async function rawSession(
  url: string,
  protocolVersion = LATEST_LEGACY_PROTOCOL_VERSION,
  capabilities: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ id: string; version: string; headers: Record<string, string> }> {
  const reply = await rawPost(url, initializeMessage(protocolVersion, capabilities), headers);
  const id = reply.headers.get("mcp-session-id");
  if (reply.status !== 200 || !id)
    throw new Error(`initialize failed: ${reply.status} ${JSON.stringify(reply.messages)}`);
  const result = reply.messages[0]?.result as { protocolVersion: string } | undefined;
  if (!result) throw new Error("initialize answered without a result");
  const version = result.protocolVersion;
  const sessionHeaders = { ...headers, "mcp-session-id": id, "mcp-protocol-version": version };
  await rawPost(url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders);
  return { id, version, headers: sessionHeaders };
}

/** A long-lived SSE response read message by message, with the event ids it carried. */
export class RawStream {
  readonly status: number;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #controller: AbortController;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  readonly #queue: { id: string | undefined; message: Record<string, unknown> }[] = [];

  private constructor(response: Response, controller: AbortController) {
    this.status = response.status;
    if (!response.body) throw new Error("no body");
    this.#reader = response.body.getReader();
    this.#controller = controller;
  }

  static async open(url: string, init: RequestInit): Promise<RawStream> {
    const controller = new AbortController();
    const response = await fetch(url, { ...init, signal: controller.signal });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      throw new Error(`expected an SSE stream, got ${response.status}: ${await response.text()}`);
    }
    return new RawStream(response, controller);
  }

  static get(url: string, headers: Record<string, string>): Promise<RawStream> {
    return RawStream.open(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } });
  }

  static post(url: string, message: unknown, headers: Record<string, string>): Promise<RawStream> {
    return RawStream.open(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
      body: JSON.stringify(message),
    });
  }

  /** The next event; undefined once the server ended the stream. */
  async next(): Promise<{ id: string | undefined; message: Record<string, unknown> } | undefined> {
    for (;;) {
      const queued = this.#queue.shift();
      if (queued) return queued;
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
      const cut = this.#buffer.lastIndexOf("\n\n");
      if (cut < 0) continue;
      const complete = this.#buffer.slice(0, cut);
      this.#buffer = this.#buffer.slice(cut + 2);
      for (const block of complete.split(/\n\n/)) {
        const lines = block.split("\n");
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
        if (data.length === 0) continue;
        const id = lines
          .find((l) => l.startsWith("id:"))
          ?.slice(3)
          .trim();
        this.#queue.push({ id, message: JSON.parse(data.join("\n")) as Record<string, unknown> });
      }
    }
  }

  close(): void {
    this.#controller.abort();
  }
}
