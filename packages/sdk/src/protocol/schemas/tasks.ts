import * as z from "zod";
import { JsonObjectSchema } from "./common.js";
import { RequestParamsSchema, resultFields } from "./envelope.js";
import { InputRequestsSchema } from "./input-required.js";

export { type TaskSupport, TaskSupportSchema } from "./task-support.js";

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`): a tools/call may answer a task handle, which
 * the client follows with tasks/get, answers with tasks/update and stops with tasks/cancel.
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export const TaskStatusSchema = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** The statuses a task never leaves. */
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.includes(status);
}

const taskFields = {
  taskId: z.string(),
  status: TaskStatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  /** Integer milliseconds from creation the task is kept for; null for unlimited. */
  ttlMs: z.number().int().positive().nullable(),
  /** Integer milliseconds a client should wait between two tasks/get. */
  pollIntervalMs: z.number().int().positive().optional(),
};

export const TaskSchema = z.looseObject(taskFields);
export type Task = z.infer<typeof TaskSchema>;

/** What a tools/call answers instead of its result when the server runs it as a task: flat, no wrapper. */
export const CreateTaskResultSchema = z.looseObject({
  ...resultFields,
  resultType: z.literal("task"),
  ...taskFields,
});
export type CreateTaskResult = z.infer<typeof CreateTaskResultSchema>;

/** A task with the payload of its status inlined: what tasks/get answers and notifications/tasks carry. */
export const DetailedTaskSchema = z.looseObject({
  ...taskFields,
  inputRequests: InputRequestsSchema.optional(),
  result: JsonObjectSchema.optional(),
  error: z
    .looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
    .optional(),
});
export type DetailedTask = z.infer<typeof DetailedTaskSchema>;

export const GetTaskResultSchema = z.looseObject({ ...resultFields, ...DetailedTaskSchema.shape });
export type GetTaskResult = z.infer<typeof GetTaskResultSchema>;

export const TaskIdParamsSchema = z.looseObject({ ...RequestParamsSchema.shape, taskId: z.string() });
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;

/**
 * Answers are checked only under the keys the task is waiting on: an answer under any other key is
 * ignored, as the extension asks, so its shape cannot fail the update.
 */
export const UpdateTaskParamsSchema = z.looseObject({
  ...TaskIdParamsSchema.shape,
  inputResponses: z.record(z.string(), JsonObjectSchema),
});
export type UpdateTaskParams = z.infer<typeof UpdateTaskParamsSchema>;

/** tasks/update and tasks/cancel answer an empty acknowledgement, never the task. */
export const TaskAckResultSchema = z.looseObject({ ...resultFields, resultType: z.literal("complete") });
export type TaskAckResult = z.infer<typeof TaskAckResultSchema>;

export const TaskStatusNotificationParamsSchema = DetailedTaskSchema;
export type TaskStatusNotificationParams = DetailedTask;
