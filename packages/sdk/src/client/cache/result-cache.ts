import { randomUUID } from "node:crypto";
import type { JsonRpcNotification } from "../../protocol/jsonrpc.js";
import { describeError, type Logger } from "../../protocol/logger.js";
import { isCacheable, methodFacts, methodsWhere } from "../../protocol/methods.js";
import { MemoryResultCacheStore, type ResultCacheStore } from "./result-cache-store.js";

export interface ResultCacheOptions {
  /** Where results are kept: a MemoryResultCacheStore of this client by default. */
  store?: ResultCacheStore;
  /**
   * Whose private results these are: clients acting with the same credentials may share a store and
   * name the same context to reuse each other's private results. Never give two tokens one context.
   * Default: this client alone.
   */
  authorizationContext?: string;
  /** Which server the results are of: the URL over HTTP, by default; otherwise this client alone. */
  server?: string;
  /** The clock freshness is read against; tests pass their own. */
  now?: () => number;
}

/** How one request uses the cache: read and write ("default"), write only ("reload"), or neither. */
export type CacheMode = "default" | "reload" | "no-store";

/** The params that decide a result, in one spelling: the envelope and progress token are not among them. */
function paramsKey(params: Record<string, unknown>): string {
  const { _meta: _envelope, ...rest } = params;
  return JSON.stringify(rest, (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/**
 * The client's use of the caching hints. A complete result with a positive `ttlMs` is kept that long
 * under its method and params: a `public` one where every client of the server sharing the store
 * reads it, a `private` one under this client's authorization context only. Nothing else is kept:
 * errors, input_required rounds and the results of retries (which answer one user's answers, and
 * are no part of the key) never are. A list_changed notification forgets its list, and
 * resources/updated its resource.
 */
export class ResultCache {
  readonly #store: ResultCacheStore;
  readonly #server: string;
  readonly #context: string;
  readonly #now: () => number;
  readonly #logger: Logger;

  constructor(options: ResultCacheOptions, server: string | undefined, logger: Logger) {
    this.#now = options.now ?? Date.now;
    this.#store = options.store ?? new MemoryResultCacheStore({ now: this.#now });
    this.#server = options.server ?? server ?? randomUUID();
    this.#context = options.authorizationContext ?? randomUUID();
    this.#logger = logger;
  }

  /** A fresh result for this request, with the `ttlMs` it has left; undefined when there is none. */
  async read(method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    if (!isCacheable(method)) return undefined;
    const request = this.#requestKey(method, params);
    for (const scope of [`private:${this.#context}`, "public"]) {
      const entry = await this.#safely("read", () => this.#store.get(`${request}${scope}`));
      const left = entry === undefined ? 0 : entry.expiresAt - this.#now();
      if (entry !== undefined && left > 0) return { ...structuredClone(entry.result), ttlMs: left };
    }
    return undefined;
  }

  /** Keeps a complete result of a request that carried no inputResponses or requestState. */
  async write(
    method: string,
    params: Record<string, unknown>,
    result: Record<string, unknown>,
  ): Promise<void> {
    if (!isCacheable(method)) return;
    const { ttlMs, cacheScope } = result;
    if (result.resultType !== "complete" || typeof ttlMs !== "number" || ttlMs <= 0) return;
    const scope = cacheScope === "public" ? "public" : `private:${this.#context}`;
    const entry = { result: structuredClone(result), expiresAt: this.#now() + ttlMs };
    await this.#safely("write", () => this.#store.set(`${this.#requestKey(method, params)}${scope}`, entry));
  }

  /** Forgets what a change notification makes stale. */
  async observe(message: JsonRpcNotification): Promise<void> {
    const prefixes = methodsWhere((facts) => facts.changedBy === message.method).flatMap((method) => {
      const target = methodFacts(method).carrier?.target;
      if (target === undefined) return [this.#methodKey(method)];
      // A carrier's change names the one target that changed: resources/updated its uri.
      const value = message.params?.[target];
      return typeof value === "string" ? [this.#requestKey(method, { [target]: value })] : [];
    });
    for (const prefix of prefixes) await this.#safely("invalidate", () => this.#store.deletePrefix(prefix));
  }

  #methodKey(method: string): string {
    return `${this.#server}\u0000${method}\u0000`;
  }

  #requestKey(method: string, params: Record<string, unknown>): string {
    return `${this.#methodKey(method)}${paramsKey(params)}\u0000`;
  }

  /** A store that fails costs a round trip, never the call: the server still has the answer. */
  async #safely<T>(action: string, run: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      this.#logger.warn(
        { ...describeError(error), action },
        "result cache store failed; going to the server",
      );
      return undefined;
    }
  }
}
