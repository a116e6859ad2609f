import * as z from "zod";
import { IconSchema, MetaObjectSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { cacheableFields, PaginatedParamsSchema, resultFields } from "./envelope.js";
import { TaskSupportSchema } from "./task-support.js";

export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object"), $schema: z.string().optional() }),
  outputSchema: z.looseObject({ $schema: z.string().optional() }).optional(),
  annotations: ToolAnnotationsSchema.optional(),
  icons: z.array(IconSchema).optional(),
  /** How the tool runs; `taskSupport` is the tasks extension's (absent: never as a task). */
  execution: z.looseObject({ taskSupport: TaskSupportSchema.optional() }).optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

export const ListToolsParamsSchema = PaginatedParamsSchema;
export const ListToolsResultSchema = z.looseObject({
  ...cacheableFields,
  tools: z.array(ToolSchema),
  nextCursor: z.string().optional(),
});
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;

export const CallToolResultSchema = z.looseObject({
  ...resultFields,
  content: z.array(ContentBlockSchema),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

export const ToolListChangedParamsSchema = z.looseObject({ _meta: MetaObjectSchema.optional() });
