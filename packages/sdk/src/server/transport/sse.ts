import type { ServerResponse } from "node:http";

const KEEP_ALIVE_MS = 15_000;

/**
 * One request's SSE response: opened lazily by the first notification, ended by the final response.
 * Keep-alive comments stop idle proxies from cutting a long-lived stream.
 */
export class SseStream {
  readonly #res: ServerResponse;
  #timer: NodeJS.Timeout | undefined;

  constructor(res: ServerResponse) {
    this.#res = res;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    this.#timer = setInterval(() => this.#write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    this.#timer.unref();
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
