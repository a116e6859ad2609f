import type { JsonRpcNotification } from "../../protocol/jsonrpc.js";
import type { Logger } from "../../protocol/logger.js";
import type { CallOptions } from "../call-options.js";
import type { ClientTransport } from "../transport/client-transport.js";
import { HttpClientTransport } from "../transport/http-client.js";
import { ResultCache, type ResultCacheOptions } from "./result-cache.js";

/** The client's result cache, if it has one, used as each call's `cache` option says. */
export class CallCache {
  readonly #store: ResultCache | undefined;

  private constructor(store: ResultCache | undefined) {
    this.#store = store;
  }

  /** The cache the client's `cache` option asks for, its results named by the HTTP server's URL. */
  static of(
    choice: boolean | ResultCacheOptions | undefined,
    transport: ClientTransport,
    logger: Logger,
  ): CallCache {
    if (!choice) return new CallCache(undefined);
    const server = transport instanceof HttpClientTransport ? transport.url.href : undefined;
    return new CallCache(new ResultCache(choice === true ? {} : choice, server, logger));
  }

  /** Whether the client caches at all: without a cache a call awaits nothing here before it is sent. */
  get enabled(): boolean {
    return this.#store !== undefined;
  }

  /** A fresh result to reuse, for a call that lets the cache answer. */
  async read(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown> | undefined> {
    if ((options.cache ?? "default") !== "default") return undefined;
    return this.#store?.read(method, params);
  }

  async keep(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    result: Record<string, unknown>,
  ): Promise<void> {
    if (options.cache !== "no-store") await this.#store?.write(method, params, result);
  }

  /** Forgets what a change notification makes stale. */
  observe(message: JsonRpcNotification): void {
    void this.#store?.observe(message);
  }
}
