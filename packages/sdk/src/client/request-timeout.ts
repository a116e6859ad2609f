import { RequestTimeoutError } from "./errors.js";

/** How long one request may wait for its answer, and the option that said so (named in the error). */
export interface RequestTimeout {
  readonly ms: number;
  readonly option: RequestTimeoutError["option"];
}

/** A server that has not answered in a minute is most likely not going to: the caller hears of it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/**
 * What connecting (server/discover, or initialize) waits for each answer: a server that says nothing
 * at all, such as a stdio process that is not an MCP server, fails connect() rather than hanging it.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

const DEFAULTS: Record<RequestTimeout["option"], number> = {
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
};

/** The configured bound, checked; 0 and Infinity both mean no bound. */
export function requestTimeout(
  option: RequestTimeout["option"],
  configured: number | undefined,
): RequestTimeout {
  const ms = configured ?? DEFAULTS[option];
  if (typeof ms !== "number" || Number.isNaN(ms) || ms < 0) {
    throw new RangeError(
      `${option} must be a number of milliseconds, 0 or more (0 for no limit), not ${String(ms)}`,
    );
  }
  return { ms, option };
}

/** Runs work that the request's timeout does not count; see TransportRequestOptions.untimed. */
export type Untimed = <T>(work: () => Promise<T>) => Promise<T>;

const counted: Untimed = (work) => work();

/**
 * Runs one request under its bound: when the time is up, the signal handed to `send` aborts with
 * RequestTimeoutError, which makes the transport cancel the request its own way (stdio sends
 * notifications/cancelled; HTTP closes the request's stream), and that error is what the caller gets.
 * The bound is on waiting for the server: work `send` runs through `untimed` (signing in after a
 * 401, which may wait on the user) stops the clock, and the server has the whole bound again after.
 */
export async function withRequestTimeout<T>(
  timeout: RequestTimeout,
  method: string,
  signal: AbortSignal | undefined,
  send: (signal: AbortSignal | undefined, untimed: Untimed) => Promise<T>,
): Promise<T> {
  if (timeout.ms === 0 || timeout.ms === Number.POSITIVE_INFINITY) return send(signal, counted);
  const expired = new AbortController();
  const error = new RequestTimeoutError(method, timeout.ms, timeout.option);
  const start = () => setTimeout(() => expired.abort(error), timeout.ms);
  let timer = start();
  const untimed: Untimed = async (work) => {
    clearTimeout(timer);
    try {
      return await work();
    } finally {
      if (!expired.signal.aborted) timer = start();
    }
  };
  try {
    return await send(signal ? AbortSignal.any([signal, expired.signal]) : expired.signal, untimed);
  } catch (failure) {
    // A transport may surface the abort as its own error (a closed stream); the reason is the timeout.
    if (expired.signal.aborted && !signal?.aborted) throw error;
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

/** The bound of a whole call, rounds and waits included: the caller's signal and its wall-clock limit. */
export function callSignal(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): AbortSignal | undefined {
  const signals = [signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter(
    (each): each is AbortSignal => each !== undefined,
  );
  return signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
}
