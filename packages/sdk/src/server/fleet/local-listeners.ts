import type { BusEvent, BusListener } from "./notification-bus.js";

/** Listeners of one process; a listener that throws does not keep the event from the others. */
export class LocalListeners {
  readonly #listeners = new Set<BusListener>();

  add(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  deliver(event: BusEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener must not starve the rest; each reports its own failures.
      }
    }
  }
}
