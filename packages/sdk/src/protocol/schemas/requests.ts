import * as z from "zod";
import { CompleteParamsSchema } from "./completion.js";
import { PaginatedParamsSchema, RequestMetaSchema, RequestParamsSchema } from "./envelope.js";
import { retryFields } from "./input-required.js";
import { SubscriptionFilterSchema } from "./notifications.js";

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

export type PaginatedParams = z.infer<typeof PaginatedParamsSchema>;
export type RequestParams = z.infer<typeof RequestParamsSchema>;

/** The client-to-server requests of 2026-07-28 and the schema of their params. */
export const RequestParamsByMethod = {
  "server/discover": RequestParamsSchema,
  "tools/list": PaginatedParamsSchema,
  "tools/call": CallToolParamsSchema,
  "prompts/list": PaginatedParamsSchema,
  "prompts/get": GetPromptParamsSchema,
  "resources/list": PaginatedParamsSchema,
  "resources/templates/list": PaginatedParamsSchema,
  "resources/read": ReadResourceParamsSchema,
  "completion/complete": CompleteParamsSchema,
  "subscriptions/listen": ListenParamsSchema,
} as const;
export type RequestMethod = keyof typeof RequestParamsByMethod;

/**
 * The same schemas without `_meta`, for params whose envelope the server has already validated:
 * checking it twice per request was a measurable share of a small request's cost.
 */
export const RequestParamsAfterEnvelope: Readonly<Record<RequestMethod, z.ZodType>> = Object.freeze(
  Object.fromEntries(
    Object.entries(RequestParamsByMethod).map(([method, schema]): [string, z.ZodType] => [
      method,
      (schema as z.ZodObject<{ _meta: z.ZodType }>).omit({ _meta: true }),
    ]),
  ) as Record<RequestMethod, z.ZodType>,
);

/** The list methods that take a `cursor` and may answer with a `nextCursor`. */
export const PAGINATED_METHODS: ReadonlySet<string> = new Set(
  Object.entries(RequestParamsByMethod)
    .filter(([, schema]) => schema === PaginatedParamsSchema)
    .map(([method]) => method),
);

/** Methods whose complete results carry ttlMs/cacheScope. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);
