import { ConnectionFailedError } from "./http-errors.js";

/**
 * Wraps fetch so that a request that reaches no server fails as ConnectionFailedError, naming the URL
 * and the reason, instead of fetch's bare "fetch failed" TypeError. An abort is not such a failure and
 * passes through as it is.
 */
export function nameConnectionFailures(fetchImpl: typeof fetch): typeof fetch {
  return (input, init) =>
    fetchImpl(input, init).catch((error: unknown) => {
      if (!(error instanceof TypeError)) throw error;
      throw new ConnectionFailedError(input instanceof Request ? input.url : String(input), error);
    });
}
