import * as z from "zod";
import { META } from "../versions.js";
import { ClientCapabilitiesSchema } from "./capabilities.js";
import { CacheScopeSchema, ImplementationSchema, LoggingLevelSchema, ProgressTokenSchema } from "./common.js";

/** The per-request `_meta` envelope that replaces `initialize` in 2026-07-28. */
export const RequestMetaSchema = z.looseObject({
  [META.protocolVersion]: z.string(),
  [META.clientCapabilities]: ClientCapabilitiesSchema,
  [META.clientInfo]: ImplementationSchema.optional(),
  [META.logLevel]: LoggingLevelSchema.optional(),
  progressToken: ProgressTokenSchema.optional(),
});
export type RequestMeta = z.infer<typeof RequestMetaSchema>;

/** Every 2026-07-28 request's params carry the envelope. */
export const RequestParamsSchema = z.looseObject({ _meta: RequestMetaSchema });

export const ResultMetaSchema = z.looseObject({ [META.serverInfo]: ImplementationSchema.optional() });

export const resultFields = {
  resultType: z.string(),
  _meta: ResultMetaSchema.optional(),
};

export const cacheableFields = {
  ...resultFields,
  ttlMs: z.number().int().min(0),
  cacheScope: CacheScopeSchema,
};

export const EmptyResultSchema = z.looseObject(resultFields);
export type EmptyResult = z.infer<typeof EmptyResultSchema>;

export const PaginatedParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  cursor: z.string().optional(),
});
