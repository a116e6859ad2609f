import type { Logger } from "../../protocol/logger.js";
import type { TaskRecord, TaskStore } from "../fleet/task-store.js";
import type { TaskSealer } from "./task-sealer.js";

/** What the parts of the task runtime share. */
export interface TaskKit {
  readonly store: TaskStore;
  readonly sealer: TaskSealer;
  readonly logger: Logger;
  readonly now: () => number;
  /** Hears every change a compare-and-set made, to announce it. */
  changed(record: TaskRecord): void;
}

/** How many times a change is retried when another writer won the compare-and-set in between. */
const MAX_ATTEMPTS = 64;

/**
 * Applies `change` to the stored task until its compare-and-set wins: the task as written, or as read
 * when `change` returns undefined (nothing to do), or undefined when the task is gone.
 */
export async function mutateTask(
  kit: TaskKit,
  taskId: string,
  change: (record: TaskRecord) => TaskRecord | undefined,
): Promise<TaskRecord | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const record = await kit.store.get(taskId);
    if (!record) return undefined;
    const next = change(record);
    if (!next) return record;
    const written = { ...next, lastUpdatedAt: Math.max(kit.now(), record.lastUpdatedAt) };
    if (await kit.store.compareAndSet(record, written)) {
      const stored = { ...written, revision: record.revision + 1 };
      kit.changed(stored);
      return stored;
    }
  }
  throw new Error(`The task store kept changing under ${MAX_ATTEMPTS} attempts to update one task`);
}

/** The sealed map a record field holds, opened; empty when the field is absent. */
export function openMap(
  kit: TaskKit,
  taskId: string,
  sealed: Uint8Array | undefined,
): Record<string, unknown> {
  return sealed ? (kit.sealer.open(taskId, sealed) as Record<string, unknown>) : {};
}

/** A map sealed for a record field, or undefined (the field dropped) when it is empty. */
export function sealMap(kit: TaskKit, taskId: string, map: Record<string, unknown>): Uint8Array | undefined {
  return Object.keys(map).length === 0 ? undefined : kit.sealer.seal(taskId, map);
}

/** A record without the optional fields `drop` names: an absent field, not one set to undefined. */
export function without(record: TaskRecord, ...drop: (keyof TaskRecord)[]): TaskRecord {
  const copy: Record<string, unknown> = { ...record };
  for (const key of drop) delete copy[key];
  return copy as unknown as TaskRecord;
}
