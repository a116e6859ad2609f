import * as z from "zod";
import { AnnotationsSchema, IconSchema, MetaObjectSchema } from "./common.js";
import { ResourceContentsSchema, resourceFields } from "./content.js";
import { cacheableFields } from "./envelope.js";

export const ResourceSchema = z.looseObject(resourceFields);
export type Resource = z.infer<typeof ResourceSchema>;

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  icons: z.array(IconSchema).optional(),
  annotations: AnnotationsSchema.optional(),
  _meta: MetaObjectSchema.optional(),
});
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

export const ListResourcesResultSchema = z.looseObject({
  ...cacheableFields,
  resources: z.array(ResourceSchema),
  nextCursor: z.string().optional(),
});
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;

export const ListResourceTemplatesResultSchema = z.looseObject({
  ...cacheableFields,
  resourceTemplates: z.array(ResourceTemplateSchema),
  nextCursor: z.string().optional(),
});
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;

export const ReadResourceResultSchema = z.looseObject({
  ...cacheableFields,
  contents: z.array(ResourceContentsSchema),
});
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;
