/**
 * Rounds that run once. For a `once: true` tool, prompt or resource template McpServer wraps the
 * handler's own requestState in the once layer's envelope (mcp/once-envelope.ts; how it nests with
 * the other layers: request-state-layers.ts).
 *
 * The flow id and the first-mint time are minted when the first round asks, the round id on every
 * round that asks. A round that carries the envelope is leased in the OnceStore before its handler
 * runs, so that across a fleet it runs at most once: a repeat gets the first outcome back while the
 * store holds it, then the frozen invalid-requestState error. A round with no state (the first) runs
 * as any new call does.
 *
 * Leases. Nothing bounds how long a handler runs, so a round's lease is short (`lease`, default 30 s)
 * and renewed by its holder while the handler runs: it lapses only when the holder stopped (killed,
 * frozen, cut off from the store), within one lease. The round is marked started just before the
 * handler is entered, never earlier. A repeat that finds a live lease is told the round is in progress
 * and when to retry; one whose lease lapsed before the start mark runs it (no effect can have
 * happened); one whose lease lapsed after it, with no outcome, is told the outcome is unknown: the
 * effect may have happened, so the round never runs again.
 *
 * How long a round is remembered. The sealed layer goes on afresh around every outbound state, so a
 * repeat of round n, answered from the store, hands out round n+1's state with a new expiry, and a
 * repeat of round n+1 with that state does the same for round n+2: a round's states can open long
 * after the round itself ran. So a round's record (its claim, then its consumed marker) is not timed from the
 * round but kept until the whole flow is over: first mint + flowLifetime + the state's TTL + clock
 * skew. No state of the flow opens after that, however it was sealed: every round and every repeat
 * of a flow older than flowLifetime is refused, so none of its states is sealed later, and each
 * expires a state TTL after it was. A handler that never finished (its process died) leaves its
 * round orphaned until then too.
 *
 * What the store holds. An outcome carries the handler's result and, on a round that asks again, the
 * next envelope with the handler's own state: answers and what was made of them. It reaches the store
 * sealed with the requestState codec and bound to its round (`sealValue`), so every store, the
 * in-memory one included, keeps ciphertext, and an outcome copied to another round does not open
 * there. One that does not open is refused like a consumed round, and logged without its content.
 */

import { hostname } from "node:os";
import {
  CLOCK_SKEW_SECONDS,
  InvalidRequestState,
  openValue,
  type RequestStateCodec,
  type RequestStateSecurity,
  sealValue,
} from "@roundtrip/sealing";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import { isRecord } from "../../protocol/is-record.js";
import { describeError, type Logger } from "../../protocol/logger.js";
import { MemoryOnceStore } from "../fleet/memory-once-store.js";
import type { OnceStore } from "../fleet/once-store.js";
import type { ResultObject } from "../middleware.js";
import { randomId } from "../random-id.js";
import { onceLayer } from "../request-state-layers.js";
import { currentRound } from "../telemetry/round-record.js";
import { answersDigest } from "./answers-digest.js";
import { LeaseRenewals } from "./lease-renewals.js";
import type { OnceEnvelope } from "./once-envelope.js";
import { InProgress, OutcomeUnknown, Refused, StoreDown, wireError } from "./once-round-errors.js";

export interface OnceOptions {
  /** Where consumed rounds are recorded. Default: a `MemoryOnceStore` (one process; use a shared one for a fleet). */
  store?: OnceStore;
  /** Seconds a completed round's outcome is kept for repeats (default 300, at most until its flow is over). */
  outcomeTtl?: number;
  /** Seconds one flow may keep asking, counted from its first round (default 3600). */
  flowLifetime?: number;
  /** Seconds a repeat waits for a copy of its round that is still running before it is told to retry (default 10). */
  wait?: number;
  /**
   * Seconds a round's lease holds unless its holder renews it (default 30; renewed every third of it
   * while the handler runs): how long after its holder died a round is recovered or reported.
   */
  lease?: number;
  /**
   * Names this instance in the store's leases and in the logs (default `<hostname>/<pid>`, read when
   * a once-round first runs; where the runtime denies the host's name, a random name instead).
   */
  instanceId?: string;
}

export interface OnceSettings {
  options: OnceOptions;
  logger: Logger;
  /** The current time in unix seconds. */
  now: () => number;
  /** The request-state policy: its TTL bounds how long a state can be echoed, its codec seals outcomes. */
  security: RequestStateSecurity;
}

/** The round's params as McpServer sees them: plaintext state, the client's answers. */
export interface OnceParams {
  requestState?: string;
  inputResponses?: unknown;
  [key: string]: unknown;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const FIRST_POLL_MS = 5;
const LAST_POLL_MS = 100;

function positiveSeconds(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value;
  throw new RangeError(`once.${what} must be a positive number of seconds, got ${String(value)}`);
}

/** What a round's outcome is sealed for: that round only. */
function outcomeContext(key: string): string {
  return `roundtrip/once-outcome/${key}`;
}

function mintId(): string {
  return randomId(16, "base64url");
}

/** The guard McpServer puts around every once-handler. */
export class OnceRounds {
  readonly store: OnceStore;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #codec: RequestStateCodec;
  /** Seconds from a flow's first mint until none of its states can open: its rounds are kept as long. */
  readonly #flowSpan: number;
  readonly #outcomeMs: number;
  readonly #flowLifetime: number;
  readonly #waitMs: number;
  readonly #leaseMs: number;
  /** Every third of a lease, so that it lapses only once this process can no longer renew it. */
  readonly #renewals: LeaseRenewals;
  #holder: string | undefined;

  constructor(settings: OnceSettings) {
    const { options } = settings;
    const store = options.store ?? new MemoryOnceStore();
    const methods = ["claim", "lease", "start", "renew", "complete", "release", "read", "ready"] as const;
    for (const method of methods) {
      if (typeof store?.[method] !== "function") {
        throw new TypeError(`once.store must implement OnceStore (${methods.join(", ")})`);
      }
    }
    this.store = store;
    this.#logger = settings.logger;
    this.#now = settings.now;
    this.#codec = settings.security.codec;
    this.#outcomeMs = Math.ceil(positiveSeconds(options.outcomeTtl, 300, "outcomeTtl") * 1000);
    this.#flowLifetime = positiveSeconds(options.flowLifetime, 3600, "flowLifetime");
    this.#flowSpan = this.#flowLifetime + settings.security.ttl + CLOCK_SKEW_SECONDS;
    this.#waitMs = positiveSeconds(options.wait, 10, "wait") * 1000;
    this.#leaseMs = Math.ceil(positiveSeconds(options.lease, 30, "lease") * 1000);
    this.#renewals = new LeaseRenewals(Math.max(1, Math.floor(this.#leaseMs / 3)), (key, token) =>
      this.#renew(key, token),
    );
    const { instanceId } = options;
    if (instanceId !== undefined && (typeof instanceId !== "string" || instanceId === "")) {
      throw new TypeError(`once.instanceId must be a non-empty string, got ${String(instanceId)}`);
    }
    this.#holder = instanceId;
  }

  /**
   * Read on first use, not at construction: Deno asks for a permission to read the host's name, and a
   * server with no once-tool must not need it.
   */
  get #instanceId(): string {
    this.#holder ??= defaultInstanceId();
    return this.#holder;
  }

  /**
   * Runs one round of a once-handler: `inner` gets the params with the handler's own state in place
   * of the envelope, and its InputRequiredResult leaves with a fresh envelope around its state.
   */
  async run<P extends OnceParams>(
    method: string,
    target: string,
    params: P,
    inner: (params: P) => Promise<ResultObject>,
  ): Promise<ResultObject> {
    try {
      return await this.#run(params, inner);
    } catch (error) {
      if (error instanceof Refused || error instanceof OutcomeUnknown) currentRound()?.once("refused");
      throw wireError(error, method, target, this.#logger);
    }
  }

  async #run<P extends OnceParams>(
    params: P,
    inner: (params: P) => Promise<ResultObject>,
  ): Promise<ResultObject> {
    if (params.requestState === undefined) {
      if (params.inputResponses !== undefined) throw new Refused("once: inputResponses without requestState");
      // Even a first round runs only while rounds can be recorded: fail closed from the start.
      const ready = await this.#store("ready", () => this.store.ready());
      if (!ready) throw new StoreDown("ready", new Error("the once-store reports it is not ready"));
      const result = await inner(params);
      return this.#withEnvelope(result, mintId(), this.#now());
    }
    const envelope = onceLayer.read(params.requestState);
    if (!envelope) throw new Refused("once: the state carries no flow");
    if (this.#now() - envelope.t > this.#flowLifetime) throw new Refused("once: flow lifetime exceeded");

    const key = `${envelope.f}.${envelope.r}`;
    const digest = answersDigest(params.inputResponses);
    const { requestState: _envelope, ...rest } = params;
    const unwrapped = (envelope.s === undefined ? rest : { ...rest, requestState: envelope.s }) as P;
    const deadline = performance.now() + this.#waitMs;
    let delay = FIRST_POLL_MS;
    for (;;) {
      const token = mintId();
      const request = {
        token,
        holder: this.#instanceId,
        leaseMs: this.#leaseMs,
        ttlMs: this.#untilFlowEnds(envelope),
      };
      const got = await this.#store("lease", () => this.store.lease(key, request));
      if (got.leased) return this.#runLeased(key, token, digest, envelope, () => inner(unwrapped));
      const { record } = got;
      if (record.status === "consumed") throw new Refused("once: round already consumed");
      if (record.status === "done") return this.#stored(key, record.outcome, digest);
      if (record.status === "orphaned" && record.started) throw new OutcomeUnknown(record);
      if (performance.now() >= deadline) {
        const leaseMs = record.status === "pending" ? record.leaseMs : 0;
        throw new InProgress(Math.ceil(leaseMs / 1000));
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, LAST_POLL_MS);
    }
  }

  async #runLeased(
    key: string,
    token: string,
    digest: string,
    envelope: OnceEnvelope,
    inner: () => Promise<ResultObject>,
  ): Promise<ResultObject> {
    let started: boolean;
    try {
      started = await this.#store("start", () => this.store.start(key, token, this.#leaseMs));
    } catch (error) {
      // The handler was not entered: free the round, so that the start mark (which the store may
      // hold though it did not confirm it) does not leave the round's outcome falsely unknown.
      await this.#release(key, token);
      throw error;
    }
    // This process stalled past its lease and another attempt took the round: that one runs it.
    if (!started) throw new InProgress(Math.ceil(this.#leaseMs / 1000));
    currentRound()?.once("ran");
    this.#renewals.hold(key, token);
    let result: ResultObject;
    try {
      result = this.#withEnvelope(await inner(), envelope.f, envelope.t);
    } catch (error) {
      // A handler that throws did not complete: the round may be tried again.
      await this.#release(key, token);
      throw error;
    } finally {
      this.#renewals.release(token);
    }
    const consumedMs = this.#untilFlowEnds(envelope);
    const ttl = { outcomeMs: Math.min(this.#outcomeMs, consumedMs), consumedMs };
    try {
      const outcome = sealValue(
        this.#codec,
        Buffer.from(JSON.stringify({ d: digest, r: result })),
        outcomeContext(key),
      );
      await this.store.complete(key, token, outcome, ttl);
    } catch (cause) {
      // The handler ran: its caller gets the outcome. The round stays started with no outcome, so once
      // its lease lapses repeats are told its outcome is unknown, and it never runs again.
      this.#logger.error(
        { key, ...describeError(cause) },
        "once-store: could not record or confirm a completed round; should the store not hold it, repeats are told its outcome is unknown",
      );
    }
    return result;
  }

  /** Renews a running round's lease; a round's renewals stop when its handler returns. */
  #renew(key: string, token: string): void {
    this.store.renew(key, token, this.#leaseMs).then(
      (held) => {
        if (!held) this.#logger.warn({ key }, "once-store: a running round's lease is held by no one");
      },
      (cause: unknown) =>
        this.#logger.warn(
          { key, ...describeError(cause) },
          "once-store: could not renew a running round's lease",
        ),
    );
  }

  async #release(key: string, token: string): Promise<void> {
    await this.store.release(key, token).catch((cause: unknown) => {
      this.#logger.error(
        { key, ...describeError(cause) },
        "once-store: could not release a round that did not complete; retries wait for its lease to lapse",
      );
    });
  }

  /**
   * Milliseconds until no state of the envelope's flow can open (see the module comment). A claim gets
   * at least the state's TTL plus clock skew, since older flows are refused before they claim; only a
   * handler that outran its flow's end completes with nothing left to keep, hence the floor.
   */
  #untilFlowEnds(envelope: OnceEnvelope): number {
    return Math.max(1, Math.ceil((envelope.t + this.#flowSpan - this.#now()) * 1000));
  }

  #stored(key: string, sealed: string, digest: string): ResultObject {
    let outcome: unknown;
    try {
      outcome = JSON.parse(decoder.decode(openValue(this.#codec, sealed, outcomeContext(key))));
    } catch (error) {
      const reason = error instanceof InvalidRequestState ? error.reason : "not an outcome";
      throw new Refused(`once: the stored outcome did not open (${reason})`);
    }
    if (!isRecord(outcome) || !isRecord(outcome.r)) throw new Refused("once: the stored outcome is not one");
    if (outcome.d !== digest) throw new Refused("once: a consumed round repeated with other inputResponses");
    currentRound()?.once("replayed");
    return outcome.r as ResultObject;
  }

  #withEnvelope(result: ResultObject, flow: string, first: number): ResultObject {
    if (!isInputRequiredResult(result)) return result;
    const state = typeof result.requestState === "string" ? result.requestState : undefined;
    return { ...result, requestState: onceLayer.write({ f: flow, r: mintId(), t: first, s: state }) };
  }

  async #store<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new StoreDown(operation, error);
    }
  }
}

/** Reads a registration's `once`: a boolean or absent. */
export function checkOnce(once: unknown, what: string): boolean {
  if (once === undefined || once === false) return false;
  if (once === true) return true;
  throw new TypeError(`${what}: once must be true or false, got ${typeof once}`);
}

/** `<hostname>/<pid>`; a runtime that denies the host's name (Deno without --allow-sys) gets a random one. */
function defaultInstanceId(): string {
  let host: string;
  try {
    host = hostname();
  } catch {
    host = `host-${randomId(4, "hex")}`;
  }
  return `${host}/${process.pid}`;
}
