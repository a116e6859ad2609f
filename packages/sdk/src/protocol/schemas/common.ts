import * as z from "zod";

export const JsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObjectSchema>;

export const MetaObjectSchema = JsonObjectSchema;

export const RequestIdSchema = z.union([z.string(), z.number().int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

export const ProgressTokenSchema = z.union([z.string(), z.number()]);
export type ProgressToken = z.infer<typeof ProgressTokenSchema>;

export const RoleSchema = z.enum(["user", "assistant"]);
export type Role = z.infer<typeof RoleSchema>;

export const LoggingLevelSchema = z.enum([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;

export const IconSchema = z.looseObject({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(["light", "dark"]).optional(),
});
export type Icon = z.infer<typeof IconSchema>;

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
  websiteUrl: z.string().optional(),
  icons: z.array(IconSchema).optional(),
});
export type Implementation = z.infer<typeof ImplementationSchema>;

export const AnnotationsSchema = z.looseObject({
  audience: z.array(RoleSchema).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.string().optional(),
});
export type Annotations = z.infer<typeof AnnotationsSchema>;

export const ResultTypeSchema = z.string();
/** `complete` and `input_required` are core; extensions may add values they advertise. */
export type ResultType = "complete" | "input_required" | (string & {});

export const CacheScopeSchema = z.enum(["public", "private"]);
export type CacheScope = z.infer<typeof CacheScopeSchema>;
