import { PassThrough } from "node:stream";
import type { JsonRpcNotification, JsonRpcRequest } from "../protocol/jsonrpc.js";
import { LineSplitter } from "../protocol/stdio-framing.js";
import type { Server } from "../server/server.js";
import { serveStdio } from "../server/transport/stdio-server.js";
import { assertServerMessage, WireSchemaError } from "./wire-schema.js";

/**
 * `serveStdio` over real in-memory streams. Every line the server writes is parsed and validated
 * (results against the method of the request they answer) before a test sees it.
 */
export class StdioPeer {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  /** Settles when `serveStdio` returns. */
  readonly done: Promise<void>;
  readonly #methods = new Map<unknown, string>();
  readonly #queue: unknown[] = [];
  readonly #written: Buffer[] = [];
  readonly #waiting: Array<(message: unknown) => void> = [];
  #ended = false;
  #failure: Error | undefined;

  constructor(server: Server) {
    this.done = serveStdio(server, { input: this.input, output: this.output });
    // Read as the client transport reads: lines end at "\n" only.
    const lines = new LineSplitter();
    this.output.on("data", (chunk: Buffer) => {
      this.#written.push(chunk);
      for (const line of lines.push(chunk)) this.#receive(line);
    });
    this.output.on("end", () => {
      const last = lines.end();
      if (last !== undefined) this.#receive(last);
      this.#ended = true;
      for (const wake of this.#waiting.splice(0)) wake(undefined);
    });
  }

  #receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
      const id = (message as { id?: unknown }).id;
      assertServerMessage(message, id === undefined ? undefined : this.#methods.get(id));
    } catch (error) {
      this.#failure ??= error instanceof Error ? error : new WireSchemaError(String(error));
      message = this.#failure;
    }
    const wake = this.#waiting.shift();
    if (wake) wake(message);
    else this.#queue.push(message);
  }

  /** Writes one message (or a raw line) followed by a newline. */
  send(message: JsonRpcRequest | JsonRpcNotification | Record<string, unknown> | string): void {
    this.sendInPieces(message, []);
  }

  /**
   * Writes one message (or a raw line) followed by `ending`, as JSON.stringify writes it (U+2028 and
   * U+2029 raw), in separate chunks cut at the given byte offsets.
   */
  sendInPieces(
    message: JsonRpcRequest | JsonRpcNotification | Record<string, unknown> | string,
    cuts: readonly number[],
    ending = "\n",
  ): void {
    if (typeof message !== "string" && "id" in message && typeof message.method === "string") {
      this.#methods.set(message.id, message.method);
    }
    const bytes = Buffer.from(`${typeof message === "string" ? message : JSON.stringify(message)}${ending}`);
    let start = 0;
    for (const cut of [...cuts, bytes.length]) {
      this.input.write(bytes.subarray(start, cut));
      start = cut;
    }
  }

  /** Everything the server wrote so far, as the bytes it wrote, decoded. */
  written(): string {
    return Buffer.concat(this.#written).toString("utf8");
  }

  /** The next validated message the server wrote; undefined once its output ended. */
  async next(): Promise<unknown> {
    const message =
      this.#queue.length > 0
        ? this.#queue.shift()
        : this.#ended
          ? undefined
          : await new Promise<unknown>((resolve) => this.#waiting.push(resolve));
    if (message instanceof Error) throw message;
    return message;
  }

  /** Closes the server's input, as a client does to shut it down, and waits for it to return. */
  async end(): Promise<void> {
    this.input.end();
    await this.done;
    this.output.end();
  }

  /** Everything still unread after the output ended, validated. */
  async rest(): Promise<unknown[]> {
    const messages: unknown[] = [];
    for (let m = await this.next(); m !== undefined; m = await this.next()) messages.push(m);
    return messages;
  }

  /** Throws if any line failed validation, even one no test read. */
  assertClean(): void {
    if (this.#failure) throw this.#failure;
  }
}
