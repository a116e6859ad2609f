import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { ResponseWriter } from "../transport/response-writer.js";
import { SseStream } from "../transport/sse.js";
import type { EventStore } from "../unenveloped-era.js";

/** Reports a fault of the event store, `what` saying its consequence; the stream carries on without it. */
export type StreamFaultReporter = (what: string, error: unknown) => void;

/**
 * Whether `res` can still begin an SSE stream: its headers have not gone out, it has not ended and its
 * client has not left. A response a stream lost is none of these, so it is never taken again.
 */
function canBeginStream(res: ResponseWriter): boolean {
  return !res.headersSent && !res.writableEnded && !res.destroyed;
}

/**
 * One SSE stream of a 2025-era session (a POST's answer, or the session's GET stream). Every event is
 * recorded in the event store before it is written, so it outlives the HTTP response that carries it:
 * a client that reconnects with Last-Event-ID gets the rest on a new response.
 */
export class SessionStream {
  readonly id: string;
  readonly #store: EventStore;
  readonly #onFault: StreamFaultReporter;
  #sse: SseStream | undefined;
  #res: ResponseWriter | undefined;
  #release: (() => void) | undefined;
  /** Recording, writing and resuming, one at a time in order: a resume misses no event sent meanwhile. */
  #queue: Promise<void> = Promise.resolve();
  #ended = false;

  constructor(id: string, store: EventStore, onFault: StreamFaultReporter) {
    this.id = id;
    this.#store = store;
    this.#onFault = onFault;
  }

  get attached(): boolean {
    return this.#res !== undefined;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Writes this stream's events to `res` from now on; `release` runs when the response goes away. A
   * response that can no longer begin a stream is not taken (false, and `release` runs at once): the
   * events stay recorded for a resume. A client that reconnects replaces its old response, which is
   * ended rather than left hanging.
   */
  attach(res: ResponseWriter, release?: () => void, headers: Record<string, string> = {}): boolean {
    return this.#take(res, release, headers) !== undefined;
  }

  /** Records and writes one message; messages keep their order even though recording is asynchronous. */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return this.#inTurn(async () => {
      let eventId: string;
      try {
        eventId = await this.#store.append(this.id, message);
      } catch (error) {
        this.#onFault("an SSE event could not be recorded, so it was not sent and cannot be resumed", error);
        throw error;
      }
      this.#sse?.send(message, eventId);
    });
  }

  /** Sends the final message (a POST's response) and ends the stream, whether or not it was recorded. */
  async end(message: JsonRpcMessage): Promise<void> {
    try {
      await this.send(message);
    } finally {
      this.close();
    }
  }

  /**
   * Carries on over `res` after the event `lastEventId`: what was recorded since is replayed, then
   * what follows is written as it comes (or `res` ends, when this stream has). False, with nothing
   * written, when the store keeps no such event of this stream; `release` as for `attach`.
   */
  resume(res: ResponseWriter, lastEventId: string, release: () => void): Promise<boolean> {
    return this.#inTurn(async () => {
      const missed: [string, JsonRpcMessage][] = [];
      let found: string | undefined;
      try {
        found = await this.#store.replayAfter(lastEventId, (eventId, message) => {
          missed.push([eventId, message]);
        });
      } catch (error) {
        release();
        throw error;
      }
      if (found !== this.id) {
        release();
        return false;
      }
      const sse = this.#ended ? replayOnly(res, release) : this.#take(res, release, {});
      for (const [eventId, message] of missed) sse?.send(message, eventId);
      if (this.#ended) sse?.close();
      return true;
    });
  }

  close(): void {
    this.#ended = true;
    this.#sse?.close();
    this.#detach();
  }

  /** Ends the stream and drops its events: its session is over, so nobody may resume it. */
  discard(): void {
    this.close();
    this.#store
      .forget(this.id)
      .catch((error: unknown) =>
        this.#onFault("the events of an ended session's stream could not be dropped from the store", error),
      );
  }

  #take(
    res: ResponseWriter,
    release: (() => void) | undefined,
    headers: Record<string, string>,
  ): SseStream | undefined {
    if (!canBeginStream(res)) {
      release?.();
      return undefined;
    }
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

  #inTurn<T>(step: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(step);
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  #detach(): void {
    const release = this.#release;
    this.#sse = undefined;
    this.#res = undefined;
    this.#release = undefined;
    release?.();
  }
}

/** A response that replays an ended stream and ends: it holds nothing open, so `release` runs now. */
function replayOnly(res: ResponseWriter, release: () => void): SseStream | undefined {
  release();
  return canBeginStream(res) ? new SseStream(res) : undefined;
}
