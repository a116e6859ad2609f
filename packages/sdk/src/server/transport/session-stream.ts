import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { EventStore } from "../legacy/event-store.js";
import type { ResponseWriter } from "./response-writer.js";
import { SseStream } from "./sse.js";

/**
 * One SSE stream of a 2025-era session (a POST's answer, or the session's GET stream). Every event is
 * recorded in the event store before it is written, so it outlives the HTTP response that carries it:
 * a client that reconnects with Last-Event-ID gets the rest on a new response.
 */
export class SessionStream {
  readonly id: string;
  readonly #store: EventStore;
  #sse: SseStream | undefined;
  #res: ResponseWriter | undefined;
  #release: (() => void) | undefined;
  #queue: Promise<void> = Promise.resolve();
  #ended = false;

  constructor(id: string, store: EventStore) {
    this.id = id;
    this.#store = store;
  }

  get attached(): boolean {
    return this.#res !== undefined;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Writes this stream's events to `res` from now on (after `replay`, when resuming). `release` runs
   * when the response goes away.
   */
  attach(res: ResponseWriter, release?: () => void, headers: Record<string, string> = {}): SseStream {
    // A client that reconnects replaces its old response, which is ended rather than left hanging.
    this.#sse?.close();
    this.#detach();
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const sse = new SseStream(res);
    this.#sse = sse;
    this.#res = res;
    this.#release = release;
    res.once("close", () => {
      if (this.#res === res) this.#detach();
    });
    return sse;
  }

  /** Records and writes one message; messages keep their order even though recording is asynchronous. */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#ended) return Promise.resolve();
    const step = this.#queue.then(async () => {
      const eventId = await this.#store.append(this.id, message);
      this.#sse?.send(message, eventId);
    });
    this.#queue = step.catch(() => undefined);
    return step;
  }

  /** Sends the final message (a POST's response) and ends the stream. */
  async end(message: JsonRpcMessage): Promise<void> {
    await this.send(message);
    this.close();
  }

  close(): void {
    this.#ended = true;
    this.#sse?.close();
    this.#detach();
  }

  #detach(): void {
    const release = this.#release;
    this.#sse = undefined;
    this.#res = undefined;
    this.#release = undefined;
    release?.();
  }
}
