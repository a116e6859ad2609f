import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { TaskHandle } from "@roundtrip/sdk/client";
import type { Implementation, TaskStatus } from "@roundtrip/sdk/protocol";
import * as z from "zod";
import { CliError, ExitCode } from "./exit-codes.js";
import { PENDING_ID, PendingStore } from "./pending-store.js";
import { namesIn, readOptionalFile, writePrivateFile } from "./private-file.js";

const TaskHandleSchema = z.object({
  /** A bearer capability of whoever created the task: kept in this 0600 file, never shown. */
  taskId: z.string().min(1),
  name: z.string(),
  // Shown and handed back to the SDK, never acted on here: whatever the server last said.
  status: z.custom<TaskStatus>((value) => typeof value === "string"),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().int().positive().optional(),
  ttlMs: z.number().int().positive().nullable(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
});

const PendingTaskSchema = z.object({
  version: z.literal(1),
  kind: z.literal("task"),
  id: z.string(),
  savedAt: z.string(),
  server: z.string(),
  /** The task as the server last described it: its status is what `roundtrip tasks` shows. */
  task: TaskHandleSchema,
  serverInfo: z
    .looseObject({ name: z.string(), version: z.string(), title: z.string().optional() })
    .optional(),
});
export type PendingTask = z.output<typeof PendingTaskSchema>;

const SUFFIX = ".task.json";

/**
 * Tasks a call left running on its server (--detach, Ctrl-C), one 0600 file each beside the saved flows
 * in <home>/pending, under ids of the same kind, so that `roundtrip resume <id>` follows either.
 */
export class PendingTasks {
  readonly dir: string;

  constructor(home: string) {
    this.dir = new PendingStore(home).dir;
  }

  /** Where the task saved as `id` is kept. */
  fileOf(id: string): string {
    return this.#path(id);
  }

  #path(id: string): string {
    if (!PENDING_ID.test(id)) {
      throw new CliError(ExitCode.usage, `"${id}" is not a saved task id; \`roundtrip tasks\` lists them`);
    }
    return join(this.dir, `${id}${SUFFIX}`);
  }

  async save(record: {
    id: string;
    server: string;
    task: TaskHandle;
    serverInfo?: Implementation | undefined;
  }): Promise<void> {
    const { serverInfo, ...rest } = record;
    const saved: PendingTask = {
      version: 1,
      kind: "task",
      savedAt: new Date().toISOString(),
      ...rest,
      task: TaskHandleSchema.parse(rest.task),
      ...(serverInfo ? { serverInfo } : {}),
    };
    await writePrivateFile(this.#path(record.id), `${JSON.stringify(saved, null, 2)}\n`);
  }

  /** The saved task, or undefined when `id` names none (it may name a saved flow). */
  async find(id: string): Promise<PendingTask | undefined> {
    if (!PENDING_ID.test(id)) return undefined;
    const path = this.#path(id);
    const text = await readOptionalFile(path);
    if (text === undefined) return undefined;
    const parsed = PendingTaskSchema.safeParse(parseJson(text));
    if (!parsed.success) {
      throw new CliError(
        ExitCode.usage,
        `${path} is not a saved task this version can follow; delete the file, or cancel the task on its server another way`,
      );
    }
    return parsed.data;
  }

  async load(id: string): Promise<PendingTask> {
    const task = await this.find(id);
    if (task === undefined) {
      throw new CliError(
        ExitCode.usage,
        `no saved task "${id}" in ${this.dir}; \`roundtrip tasks\` lists them`,
      );
    }
    return task;
  }

  async list(): Promise<PendingTask[]> {
    const names = await namesIn(this.dir);
    const tasks: PendingTask[] = [];
    for (const name of names) {
      if (!name.endsWith(SUFFIX) || !PENDING_ID.test(name.slice(0, -SUFFIX.length))) continue;
      const text = await readOptionalFile(join(this.dir, name));
      const parsed = PendingTaskSchema.safeParse(parseJson(text ?? "null"));
      if (parsed.success) tasks.push(parsed.data);
    }
    return tasks.sort((a, b) => a.savedAt.localeCompare(b.savedAt));
  }

  async delete(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
