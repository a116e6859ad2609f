import type { ResponseWriter } from "./response-writer.js";

const KEEP_ALIVE_MS = 15_000;

/**
 * One request's SSE response: opened lazily by the first notification, ended by the final response.
 * Keep-alive comments stop idle proxies from cutting a long-lived stream.
 */
export class SseStream {
  readonly #res: ResponseWriter;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(res: ResponseWriter) {
    this.#res = res;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    const timer = setInterval(() => this.#write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    // Deno and Workers hand out numeric timer ids, which have no unref.
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
    res.once("close", () => this.#stop());
  }

  /** `eventId` makes the event resumable: a client that loses the stream reconnects with Last-Event-ID. */
  send(message: unknown, eventId?: string): void {
    const id = eventId === undefined ? "" : `id: ${eventId}\n`;
    this.#write(`event: message\n${id}data: ${JSON.stringify(message)}\n\n`);
  }

  end(message: unknown, eventId?: string): void {
    this.send(message, eventId);
    this.close();
  }

  /** Ends the stream without another event. */
  close(): void {
    this.#stop();
    if (!this.#res.writableEnded) this.#res.end();
  }

  #write(chunk: string): void {
    if (!this.#res.writableEnded && !this.#res.destroyed) this.#res.write(chunk);
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
