import * as z from "zod";
import { IconSchema, MetaObjectSchema, RoleSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { cacheableFields, resultFields } from "./envelope.js";

export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});
export type PromptArgument = z.infer<typeof PromptArgumentSchema>;

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(PromptArgumentSchema).optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Prompt = z.infer<typeof PromptSchema>;

export const ListPromptsResultSchema = z.looseObject({
  ...cacheableFields,
  prompts: z.array(PromptSchema),
  nextCursor: z.string().optional(),
});
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;

export const PromptMessageSchema = z.looseObject({ role: RoleSchema, content: ContentBlockSchema });
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

export const GetPromptResultSchema = z.looseObject({
  ...resultFields,
  description: z.string().optional(),
  messages: z.array(PromptMessageSchema),
});
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
