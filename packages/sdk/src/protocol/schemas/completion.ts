import * as z from "zod";
import { RequestMetaSchema, resultFields } from "./envelope.js";

export const PromptReferenceSchema = z.looseObject({
  type: z.literal("ref/prompt"),
  name: z.string(),
  title: z.string().optional(),
});
export const ResourceTemplateReferenceSchema = z.looseObject({
  type: z.literal("ref/resource"),
  uri: z.string(),
});

export const CompleteParamsSchema = z.looseObject({
  _meta: RequestMetaSchema,
  ref: z.discriminatedUnion("type", [PromptReferenceSchema, ResourceTemplateReferenceSchema]),
  argument: z.looseObject({ name: z.string(), value: z.string() }),
  context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});
export type CompleteParams = z.infer<typeof CompleteParamsSchema>;

export const CompleteResultSchema = z.looseObject({
  ...resultFields,
  completion: z.looseObject({
    values: z.array(z.string()).max(100),
    total: z.number().int().optional(),
    hasMore: z.boolean().optional(),
  }),
});
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
