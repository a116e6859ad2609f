/**
 * Whether one request was cancelled, with its AbortSignal made only when something asks for it.
 * An AbortController per request cost more than many whole handlers, and most requests finish
 * without anyone listening; transports abort this instead, and handlers that read `ctx.signal`
 * still get a real signal, already aborted if the request was.
 */
export class RequestAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** What a caller of `handleRequest` may pass to cancel it: its own signal, or a RequestAbort. */
export type AbortSource = AbortSignal | RequestAbort;

export function signalOf(source: AbortSource): AbortSignal {
  return source instanceof RequestAbort ? source.signal : source;
}

/** What an aborted signal rejects with: its reason, or an AbortError when it gave none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/** Settles with the promise, or rejects as soon as the signal aborts, whichever comes first. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The abandoned promise may still reject later; nobody is left to hear it.
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
