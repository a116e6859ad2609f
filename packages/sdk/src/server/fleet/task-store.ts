import type { TaskStatus } from "../../protocol/schemas/tasks.js";

/**
 * One task as a fleet keeps it. Everything a client sent or a handler produced (the questions, the
 * answers, the result or error) is opaque sealed bytes here: the store never reads them, so a shared
 * store (Redis) never holds an answer in the clear. Times are milliseconds since the epoch.
 */
export interface TaskRecord {
  readonly taskId: string;
  /** Who may see the task: the principal the task was created for, as `Tasks` derives it. */
  readonly principal: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Kept at least this long from `createdAt`; null keeps it until deleted. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Sealed: the questions the task waits on (input_required), by key. */
  readonly inputRequests?: Uint8Array;
  /** Sealed: every answer the task received, by key, kept so that a re-run of its body gets them at once. */
  readonly inputResponses?: Uint8Array;
  /** Sealed: what re-creates the task's body on any instance (the tool call and the caller's auth). */
  readonly call?: Uint8Array;
  /** Sealed: where a re-run of the body resumes (the last round's state and answers). */
  readonly checkpoint?: Uint8Array;
  /** Sealed: the result (completed) or JSON-RPC error (failed). */
  readonly outcome?: Uint8Array;
  /** Bumped by every write; a write names the revision it read, so two writers never both win. */
  readonly revision: number;
}

/**
 * Where the tasks of a server, or of a fleet, live. Every change is a compare-and-set against the
 * revision the writer read, so a cancel and a completion racing on two instances settle on one.
 * Every method throws when the store cannot answer.
 */
export interface TaskStore {
  /** Stores a new task; throws when its id is taken. Resolves once a `get` anywhere would see it. */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when it is unknown or its TTL has passed. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Replaces the task when its stored revision is `expected`: true when it did. */
  compareAndSet(expected: TaskRecord, next: TaskRecord): Promise<boolean>;
  /** Calls `listener` after each change of the task, from any instance; returns the function that stops it. */
  watch(taskId: string, listener: () => void): () => void;
}
