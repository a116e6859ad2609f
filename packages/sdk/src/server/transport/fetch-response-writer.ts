import type { ResponseWriter } from "./response-writer.js";

const encoder = new TextEncoder();

/**
 * A ResponseWriter whose output is a web Response. `response` settles when the headers go out, as
 * they would on the wire: a body written whole becomes a plain body, anything written before the end
 * (an SSE stream) a ReadableStream fed as it is written. The client going away, seen as the request's
 * signal aborting or the stream being cancelled, is "close" before the response finished.
 */
export class FetchResponseWriter implements ResponseWriter {
  readonly response: Promise<Response>;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  #status = 200;
  readonly #headers = new Headers();
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #listeners: (() => void)[] = [];
  #closed = false;
  #resolve!: (response: Response) => void;

  constructor(signal: AbortSignal) {
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    if (signal.aborted) this.#gone();
    else signal.addEventListener("abort", () => this.#gone(), { once: true });
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    if (this.headersSent) return this;
    this.#status = status;
    for (const [name, value] of Object.entries(headers)) this.#headers.set(name, String(value));
    return this;
  }

  setHeader(name: string, value: string): this {
    if (!this.headersSent) this.#headers.set(name, value);
    return this;
  }

  flushHeaders(): void {
    this.#open();
  }

  write(chunk: string): boolean {
    if (this.writableEnded || this.destroyed) return false;
    this.#open();
    this.#stream?.enqueue(encoder.encode(chunk));
    return true;
  }

  end(chunk?: string): this {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (!this.headersSent) {
      this.headersSent = true;
      this.#resolve(new Response(chunk ?? null, { status: this.#status, headers: this.#headers }));
    } else if (!this.destroyed) {
      if (chunk) this.#stream?.enqueue(encoder.encode(chunk));
      this.#stream?.close();
    }
    this.writableFinished = !this.destroyed;
    // Node emits "close" after the end on a later tick; listeners that end streams rely on that.
    queueMicrotask(() => this.#close());
    return this;
  }

  once(_event: "close", listener: () => void): this {
    if (!this.#closed) this.#listeners.push(listener);
    return this;
  }

  #open(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: () => this.#gone(),
    });
    this.#resolve(new Response(body, { status: this.#status, headers: this.#headers }));
  }

  #gone(): void {
    if (this.writableFinished || this.destroyed) return;
    this.destroyed = true;
    try {
      this.#stream?.close();
    } catch {
      // Already cancelled by its reader, which is how the client's leaving was seen.
    }
    this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
