import type * as z from "zod";
import type { CallOptions, ListOptions } from "./call-options.js";
import type { CallPeer } from "./call-peer.js";
import { maxPagesOf, type Page, readAllPages } from "./pagination.js";
import { readResult } from "./results.js";

/** Requests answered in one response, which the cache may serve: the lists and completion/complete. */
export class DirectCalls {
  readonly #peer: CallPeer;

  constructor(peer: CallPeer) {
    this.#peer = peer;
  }

  /** A list method: one page, or every page with `all: true`, each page read by `admit` first. */
  async list<P extends Page, K extends keyof P>(
    method: string,
    key: K,
    schema: z.ZodType<P>,
    options: ListOptions,
    admit: (page: P) => P = (page) => page,
  ): Promise<P> {
    const maxPages = maxPagesOf(options);
    // One bound for the whole walk, as for the rounds of a call.
    const signal = this.#peer.callSignal(options);
    const readPage = async (next: string | undefined) => {
      const params = next === undefined ? {} : { cursor: next };
      return admit(await this.call(method, params, schema, options, signal));
    };
    if (maxPages === undefined) return readPage(options.cursor);
    return readAllPages(method, key, readPage, options.cursor, maxPages);
  }

  async call<T>(
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodType<T>,
    options: CallOptions,
    signal = this.#peer.callSignal(options),
  ): Promise<T> {
    const peer = this.#peer;
    await peer.ready(signal);
    const cached = peer.cache.enabled ? await peer.cache.read(method, params, options) : undefined;
    if (cached !== undefined) return cached as T;
    const raw = await peer.send(method, params, { ...options, signal });
    const result = readResult(method, peer.eraResult(method, raw), schema);
    await peer.cache.keep(method, params, options, result as Record<string, unknown>);
    return result;
  }
}
