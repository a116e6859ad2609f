import { HttpError } from "../transport/http-errors.js";

/**
 * Bounds the introspection calls in flight: a burst of distinct tokens waits in a short queue, and
 * beyond it is refused at once with 503, so a flood cannot be turned into a flood at the
 * authorization server.
 */
export class IntrospectionGate {
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  readonly #waiting: Array<() => void> = [];
  #inFlight = 0;

  constructor(maxConcurrent: number, maxQueued: number) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new TypeError("introspection maxConcurrent must be a whole number of at least 1");
    }
    if (!Number.isInteger(maxQueued) || maxQueued < 0) {
      throw new TypeError("introspection maxQueued must be a whole number of at least 0");
    }
    this.#maxConcurrent = maxConcurrent;
    this.#maxQueued = maxQueued;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.#maxConcurrent) {
      if (this.#waiting.length >= this.#maxQueued) {
        throw new HttpError(
          503,
          `Service unavailable: ${this.#maxConcurrent} token introspections are already in flight and ${this.#maxQueued} waiting; retry shortly`,
          { headers: { "retry-after": "1" } },
        );
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#inFlight += 1;
    }
    try {
      return await call();
    } finally {
      // The slot passes straight to the next waiter, so inFlight never counts it twice.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#inFlight -= 1;
    }
  }
}
