import { LATEST_LEGACY_PROTOCOL_VERSION } from "@roundtrip/sdk/protocol";

/**
 * A 2025-era client at the wire, for what a well-behaved host never does (drop a call's SSE response
 * while the server waits for an answer): each message as it is sent, each event as it arrives.
 */

const ACCEPT_BOTH = "application/json, text/event-stream";

export interface LegacySession {
  readonly url: string;
  /** The headers every message of the session carries: its id, its version, and the caller's own. */
  readonly headers: Record<string, string>;
}

export interface SseEvent {
  id: string | undefined;
  message: Record<string, unknown>;
}

/** The initialize request of a client named `clientName` that speaks LATEST_LEGACY_PROTOCOL_VERSION. */
export function initializeMessage(clientName: string, capabilities: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities,
      clientInfo: { name: clientName, version: "1.0.0" },
    },
  };
}

/** Opens a session as a host does: initialize, then notifications/initialized. */
export async function openLegacySession(
  url: string,
  headers: Record<string, string>,
  capabilities: Record<string, unknown> = { elicitation: {} },
): Promise<LegacySession> {
  const initialize = await postLegacy(url, headers, initializeMessage("raw-host", capabilities));
  await initialize.body?.cancel();
  const id = initialize.headers.get("mcp-session-id");
  if (initialize.status !== 200 || !id) throw new Error(`initialize answered ${initialize.status}`);
  const session = {
    url,
    headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": LATEST_LEGACY_PROTOCOL_VERSION },
  };
  const initialized = await send(session, { jsonrpc: "2.0", method: "notifications/initialized" });
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return session;
}

/** POSTs one message on the session; the whole answer, its JSON-RPC messages parsed. */
export async function send(
  session: LegacySession,
  message: unknown,
): Promise<{ status: number; messages: Record<string, unknown>[] }> {
  const response = await postLegacy(session.url, session.headers, message);
  const text = await response.text();
  const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  return {
    status: response.status,
    messages: text === "" ? [] : sse ? eventsIn(text).map((event) => event.message) : [JSON.parse(text)],
  };
}

/** POSTs one message as a 2025-era client does, with `headers` (its authorization, its session's). */
export function postLegacy(
  url: string,
  headers: Record<string, string>,
  message: unknown,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
    body: JSON.stringify(message),
  });
}

function eventsIn(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/);
    const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart());
    if (data.length === 0) continue;
    const id = lines
      .find((line) => line.startsWith("id:"))
      ?.slice(3)
      .trim();
    events.push({ id, message: JSON.parse(data.join("\n")) as Record<string, unknown> });
  }
  return events;
}

/** An SSE response read event by event; `drop()` goes away as a client whose connection is lost. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #controller: AbortController;
  readonly #decoder = new TextDecoder();
  readonly #queue: SseEvent[] = [];
  #buffer = "";

  private constructor(response: Response, controller: AbortController) {
    if (!response.body) throw new Error("the SSE response has no body");
    this.#reader = response.body.getReader();
    this.#controller = controller;
  }

  /** A POST of `message` on the session, answered with an SSE stream. */
  static post(session: LegacySession, message: unknown): Promise<SseReader> {
    return SseReader.#open(session.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...session.headers },
      body: JSON.stringify(message),
    });
  }

  /** The session's GET stream, resumed after `lastEventId`. */
  static resume(session: LegacySession, lastEventId: string): Promise<SseReader> {
    return SseReader.#open(session.url, {
      headers: { accept: "text/event-stream", ...session.headers, "last-event-id": lastEventId },
    });
  }

  static async #open(url: string, init: RequestInit): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { ...init, signal: controller.signal });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      throw new Error(`expected an SSE stream, got ${response.status}: ${await response.text()}`);
    }
    return new SseReader(response, controller);
  }

  /** The next event; undefined once the server ended the stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const queued = this.#queue.shift();
      if (queued) return queued;
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
      const cut = this.#buffer.lastIndexOf("\n\n");
      if (cut < 0) continue;
      this.#queue.push(...eventsIn(this.#buffer.slice(0, cut)));
      this.#buffer = this.#buffer.slice(cut + 2);
    }
  }

  /** Every event until the server ends the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  drop(): void {
    this.#controller.abort();
  }
}
