import { McpError } from "../protocol/errors.js";
import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import type { RequestId } from "../protocol/schemas/common.js";
import {
  NotificationMethod,
  type SubscriptionFilter,
  SubscriptionFilterSchema,
} from "../protocol/schemas/notifications.js";
import { SdkError } from "../protocol/sdk-error.js";
import { SubscriptionLostError } from "./errors.js";
import type { Clock } from "./rounds/input-required-driver.js";
import {
  ConnectionFailedError,
  HttpStatusError,
  ResponseStreamClosedError,
} from "./transport/http-errors.js";

/** What a listen stream yields. */
export type ListenEvent =
  /**
   * The server's answer to each opening of the stream, first and after every reconnection: the part
   * of the filter it honours. Changes made while the stream was down were missed, so list again.
   */
  | { readonly type: "acknowledged"; readonly notifications: SubscriptionFilter }
  | { readonly type: "toolsListChanged" }
  | { readonly type: "promptsListChanged" }
  | { readonly type: "resourcesListChanged" }
  | { readonly type: "resourceUpdated"; readonly uri: string };

export interface ListenOptions {
  /** Ends the stream, as `return()` does. */
  signal?: AbortSignal;
  /** Failed openings in a row before the stream fails with SubscriptionLostError. Default 5. */
  maxReconnects?: number;
  /** The wait before the first reopening, doubling up to 30 s; an acknowledgement resets it. Default 1000. */
  reconnectDelayMs?: number;
}

/** Opens the stream once: resolves when the server ends it, rejects when it breaks. */
export type ListenOpener = (
  filter: SubscriptionFilter,
  signal: AbortSignal,
  sent: (id: RequestId) => void,
) => Promise<unknown>;

/** Where a listen stream registers the request ids its notifications are tagged with. */
export interface ListenRoutes {
  set(id: RequestId, deliver: (message: JsonRpcNotification) => void): void;
  delete(id: RequestId): void;
}

const DEFAULT_MAX_RECONNECTS = 5;
const DEFAULT_RECONNECT_DELAY_MS = 1000;
const MAX_RECONNECT_DELAY_MS = 30_000;

const CHANGES: Record<string, ListenEvent["type"]> = {
  [NotificationMethod.toolsListChanged]: "toolsListChanged",
  [NotificationMethod.promptsListChanged]: "promptsListChanged",
  [NotificationMethod.resourcesListChanged]: "resourcesListChanged",
};

/**
 * A refusal from the server, or a fault of this client, is not cured by asking again; a stream that
 * broke, a connection lost, a server restarting (5xx, 429) may be.
 */
function worthReopening(error: unknown): boolean {
  if (error instanceof McpError) return false;
  if (error instanceof HttpStatusError) return error.status >= 500 || error.status === 429;
  if (error instanceof ResponseStreamClosedError || error instanceof ConnectionFailedError) return true;
  // A connection lost while reading comes as a TypeError with a cause; one without is a misuse of this client.
  if (error instanceof TypeError) return "cause" in error;
  return !(error instanceof SdkError);
}

/**
 * One `subscriptions/listen` subscription, read as an async iterator. It reopens the stream when it
 * breaks, after a backoff, a bounded number of times in a row; the server's graceful end (its listen
 * result) ends the iteration. Events wait in a queue until read, one of each kind at most: a change
 * already waiting to be read says all a second one would.
 */
export class ListenStream implements AsyncIterableIterator<ListenEvent> {
  readonly filter: SubscriptionFilter;
  readonly #queue: ListenEvent[] = [];
  readonly #closer = new AbortController();
  readonly #routes: ListenRoutes;
  readonly #ids = new Set<RequestId>();
  #waiting:
    | { resolve: (result: IteratorResult<ListenEvent>) => void; reject: (error: unknown) => void }
    | undefined;
  #failure: unknown;
  #ended = false;
  #acknowledged = false;

  constructor(
    filter: SubscriptionFilter,
    open: ListenOpener,
    routes: ListenRoutes,
    clock: Clock,
    options: ListenOptions,
  ) {
    const parsed = SubscriptionFilterSchema.safeParse(filter);
    if (!parsed.success)
      throw new TypeError(
        "listen takes a SubscriptionFilter: toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions",
      );
    const maxReconnects = options.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
    if (!Number.isInteger(maxReconnects) || maxReconnects < 0) {
      throw new RangeError(`maxReconnects is a whole number from 0, not ${String(options.maxReconnects)}`);
    }
    this.filter = filter;
    this.#routes = routes;
    const { signal } = options;
    if (signal?.aborted) this.#end();
    signal?.addEventListener("abort", () => this.#end(), { once: true });
    if (!this.#ended)
      void this.#run(open, clock, maxReconnects, options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ListenEvent>> {
    const event = this.#queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      return Promise.reject(failure);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** Closes the stream (the server sees its request cancelled) and ends the iteration. */
  async return(): Promise<IteratorResult<ListenEvent>> {
    this.#queue.length = 0;
    this.#end();
    return { value: undefined, done: true };
  }

  async #run(open: ListenOpener, clock: Clock, maxReconnects: number, firstDelay: number): Promise<void> {
    const signal = this.#closer.signal;
    let failures = 0;
    let delay = firstDelay;
    while (!signal.aborted) {
      this.#acknowledged = false;
      try {
        await open(this.filter, signal, (id) => this.#route(id));
        this.#end();
        return;
      } catch (error) {
        if (signal.aborted) return;
        if (this.#acknowledged) {
          failures = 0;
          delay = firstDelay;
        }
        failures += 1;
        if (!worthReopening(error) || failures > maxReconnects) {
          this.#fail(worthReopening(error) ? new SubscriptionLostError(failures, error) : error);
          return;
        }
      } finally {
        this.#unroute();
      }
      try {
        await clock.sleep(delay, signal);
      } catch {
        return;
      }
      delay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
    }
  }

  #route(id: RequestId): void {
    this.#unroute();
    this.#ids.add(id);
    this.#routes.set(id, (message) => this.#receive(message));
  }

  #unroute(): void {
    for (const id of this.#ids) this.#routes.delete(id);
    this.#ids.clear();
  }

  #receive(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === NotificationMethod.subscriptionsAcknowledged) {
      this.#acknowledged = true;
      const honoured = SubscriptionFilterSchema.safeParse(params.notifications);
      this.#push({ type: "acknowledged", notifications: honoured.success ? honoured.data : {} });
      return;
    }
    const change = CHANGES[message.method];
    if (change) this.#push({ type: change } as ListenEvent);
    else if (message.method === NotificationMethod.resourceUpdated && typeof params.uri === "string") {
      this.#push({ type: "resourceUpdated", uri: params.uri });
    }
  }

  #push(event: ListenEvent): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting.resolve({ value: event, done: false });
      return;
    }
    const same = (queued: ListenEvent) =>
      queued.type === event.type &&
      (event.type !== "resourceUpdated" || (queued as { uri?: string }).uri === event.uri);
    const index = this.#queue.findIndex(same);
    // A later acknowledgement supersedes one not read yet; a repeated change adds nothing.
    if (index >= 0 && event.type === "acknowledged") this.#queue.splice(index, 1);
    else if (index >= 0) return;
    this.#queue.push(event);
  }

  #fail(error: unknown): void {
    this.#ended = true;
    this.#closer.abort();
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting.reject(error);
    else this.#failure = error;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#closer.abort();
    this.#unroute();
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ value: undefined, done: true });
  }
}
