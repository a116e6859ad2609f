import * as z from "zod";
import { META } from "../versions.js";
import { RequestIdSchema } from "./common.js";
import {
  type PaginatedParamsSchema,
  RequestMetaSchema,
  type RequestParamsSchema,
  resultFields,
} from "./envelope.js";
import { retryFields } from "./input-required.js";
import { SubscriptionFilterSchema } from "./notifications.js";

// The params and results of client requests that have no module of their own; which request takes
// which is the method table's to say (`../methods.ts`).

export const CallToolParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  ...retryFields,
});
export type CallToolParams = z.infer<typeof CallToolParamsSchema>;

export const GetPromptParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  name: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
  ...retryFields,
});
export type GetPromptParams = z.infer<typeof GetPromptParamsSchema>;

export const ReadResourceParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  uri: z.string(),
  ...retryFields,
});
export type ReadResourceParams = z.infer<typeof ReadResourceParamsSchema>;

export const ListenParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  notifications: SubscriptionFilterSchema,
});
export type ListenParams = z.infer<typeof ListenParamsSchema>;

/** A listen stream's final result: its `_meta` names the subscription the stream's notifications carried. */
export const ListenResultSchema = z.looseObject({
  ...resultFields,
  _meta: z.looseObject({ [META.subscriptionId]: RequestIdSchema }),
});

export type PaginatedParams = z.infer<typeof PaginatedParamsSchema>;
export type RequestParams = z.infer<typeof RequestParamsSchema>;
