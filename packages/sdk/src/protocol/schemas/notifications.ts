import * as z from "zod";
import { META } from "../versions.js";
import { LoggingLevelSchema, ProgressTokenSchema, RequestIdSchema } from "./common.js";

export const NotificationMetaSchema = z.looseObject({ [META.subscriptionId]: RequestIdSchema.optional() });

export const ProgressParamsSchema = z.looseObject({
  progressToken: ProgressTokenSchema,
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
  _meta: NotificationMetaSchema.optional(),
});
export type ProgressParams = z.infer<typeof ProgressParamsSchema>;

export const LoggingMessageParamsSchema = z.looseObject({
  level: LoggingLevelSchema,
  logger: z.string().optional(),
  data: z.unknown(),
  _meta: NotificationMetaSchema.optional(),
});
export type LoggingMessageParams = z.infer<typeof LoggingMessageParamsSchema>;

export const CancelledParamsSchema = z.looseObject({
  requestId: RequestIdSchema,
  reason: z.string().optional(),
  _meta: NotificationMetaSchema.optional(),
});
export type CancelledParams = z.infer<typeof CancelledParamsSchema>;

export const SubscriptionFilterSchema = z.looseObject({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string()).optional(),
  /** The tasks extension: status notifications of these tasks (the listener's own only). */
  taskIds: z.array(z.string()).optional(),
});
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

/** Methods of the server-to-client notifications of 2026-07-28. */
export const NotificationMethod = {
  progress: "notifications/progress",
  message: "notifications/message",
  cancelled: "notifications/cancelled",
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
  resourceUpdated: "notifications/resources/updated",
  subscriptionsAcknowledged: "notifications/subscriptions/acknowledged",
  /** The tasks extension: a task's status changed; the params are the task as tasks/get would answer. */
  tasks: "notifications/tasks",
} as const;
