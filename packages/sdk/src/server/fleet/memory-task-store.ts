import type { TaskRecord, TaskStore } from "./task-store.js";

/** The fewest tasks made between two sweeps: below it a sweep is cheap whenever it runs. */
const SWEEP_EVERY = 64;

/** The tasks of one process, gone when it ends: for a single instance and for tests. */
export class MemoryTaskStore implements TaskStore {
  readonly #records = new Map<string, TaskRecord>();
  readonly #watchers = new Map<string, Set<() => void>>();
  readonly #now: () => number;
  #madeSinceSweep = 0;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async create(record: TaskRecord): Promise<void> {
    // A sweep walks every task: run it once the tasks made since the last one are half as many as
    // those kept, so its cost per task stays constant however many are kept.
    if (++this.#madeSinceSweep >= Math.max(SWEEP_EVERY, this.#records.size / 2)) {
      this.#madeSinceSweep = 0;
      this.#sweep();
    }
    if (this.#records.has(record.taskId)) throw new Error(`Task id ${record.taskId} is already taken`);
    this.#records.set(record.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.#records.get(taskId);
    if (record && this.#expired(record)) {
      this.#records.delete(taskId);
      return undefined;
    }
    return record;
  }

  async compareAndSet(expected: TaskRecord, next: TaskRecord): Promise<boolean> {
    const stored = await this.get(expected.taskId);
    if (stored?.revision !== expected.revision || next.taskId !== expected.taskId) return false;
    this.#records.set(next.taskId, { ...next, revision: expected.revision + 1 });
    for (const listener of [...(this.#watchers.get(next.taskId) ?? [])]) listener();
    return true;
  }

  watch(taskId: string, listener: () => void): () => void {
    let listeners = this.#watchers.get(taskId);
    if (!listeners) {
      listeners = new Set();
      this.#watchers.set(taskId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#watchers.delete(taskId);
    };
  }

  #expired(record: TaskRecord): boolean {
    return record.ttlMs !== null && this.#now() >= record.createdAt + record.ttlMs;
  }

  /** Expired tasks go as tasks are made (see create), so a long-lived process does not keep them all. */
  #sweep(): void {
    for (const [taskId, record] of this.#records) if (this.#expired(record)) this.#records.delete(taskId);
  }
}
