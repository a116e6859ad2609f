import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.js";
import type { Logger } from "../protocol/logger.js";
import type { HandleOptions, Server } from "../server/server.js";
import { assertServerMessage } from "./wire-schema.js";

export interface Handled {
  message: JsonRpcResponse;
  refusedBeforeDispatch: boolean;
  /** Notifications the request sent before its response, each one validated. */
  notifications: JsonRpcNotification[];
}

/** What a message looks like after JSON serialisation, as every transport sends it. */
export function onTheWire<T>(message: T): T {
  return JSON.parse(JSON.stringify(message)) as T;
}

/** Notifications of one in-flight request, validated as they arrive and read in order. */
export class NotificationQueue {
  readonly seen: JsonRpcNotification[] = [];
  readonly #method: string;
  readonly #queue: JsonRpcNotification[] = [];
  readonly #waiting: Array<(message: JsonRpcNotification) => void> = [];

  constructor(method: string) {
    this.#method = method;
  }

  readonly sink = (sent: JsonRpcNotification): void => {
    const message = onTheWire(sent);
    assertServerMessage(message, this.#method);
    this.seen.push(message);
    const wake = this.#waiting.shift();
    if (wake) wake(message);
    else this.#queue.push(message);
  };

  next(): Promise<JsonRpcNotification> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Notifications received but not yet read with `next`. */
  get unread(): readonly JsonRpcNotification[] {
    return this.#queue;
  }
}

export interface Started {
  notifications: NotificationQueue;
  done: Promise<Handled>;
}

/**
 * Starts `server.handleRequest` and validates everything it emits: the response against the request's
 * method, every notification against the ServerNotification types.
 */
export function start(
  server: Server,
  request: JsonRpcRequest,
  options: Omit<HandleOptions, "notify"> = {},
): Started {
  const notifications = new NotificationQueue(request.method);
  const done = server.handleRequest(request, { ...options, notify: notifications.sink }).then((handled) => {
    const message = onTheWire(handled.message);
    assertServerMessage(message, request.method);
    if (message.id !== request.id) {
      throw new Error(`response id ${String(message.id)} does not answer request ${request.id}`);
    }
    return {
      message,
      refusedBeforeDispatch: handled.refusedBeforeDispatch,
      notifications: notifications.seen,
    };
  });
  return { notifications, done };
}

/** `start`, awaited. */
export function handle(
  server: Server,
  request: JsonRpcRequest,
  options: Omit<HandleOptions, "notify"> = {},
): Promise<Handled> {
  return start(server, request, options).done;
}

export function resultOf(handled: Handled): Record<string, unknown> {
  if ("error" in handled.message) {
    throw new Error(`expected a result, got error ${JSON.stringify(handled.message.error)}`);
  }
  return handled.message.result;
}

export function errorOf(handled: Handled): { code: number; message: string; data?: unknown } {
  if (!("error" in handled.message)) {
    throw new Error(`expected an error, got ${JSON.stringify(handled.message.result)}`);
  }
  return handled.message.error;
}

/** A promise with its settle functions, for waiting on an event without sleeping. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Values pushed by one side and awaited in order by the other. */
export class AsyncQueue<T> {
  readonly #items: T[] = [];
  readonly #waiting: Array<(value: T) => void> = [];

  push(value: T): void {
    const wake = this.#waiting.shift();
    if (wake) wake(value);
    else this.#items.push(value);
  }

  next(): Promise<T> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift() as T);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  get size(): number {
    return this.#items.length;
  }
}

export interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

/** A Logger that keeps what it is given, so tests can see what stayed off the wire. */
export function recordingLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord["level"]) =>
    (fields: Record<string, unknown>, message: string): void => {
      records.push({ level, fields, message });
    };
  return { records, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
