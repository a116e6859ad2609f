/**
 * Counts named events and lets a test wait for a count, so it waits for the event itself rather
 * than for time to pass.
 */
export class Tally {
  readonly #counts = new Map<string, number>();
  #waiters: { name: string; count: number; resolve: () => void }[] = [];

  add(name: string): void {
    this.#counts.set(name, this.count(name) + 1);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.count(waiter.name) < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  count(name: string): number {
    return this.#counts.get(name) ?? 0;
  }

  /** Resolves once `name` has happened `count` times in all. */
  reached(name: string, count: number): Promise<void> {
    if (this.count(name) >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ name, count, resolve }));
  }
}
