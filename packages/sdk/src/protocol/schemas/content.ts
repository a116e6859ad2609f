import * as z from "zod";
import { AnnotationsSchema, IconSchema, MetaObjectSchema } from "./common.js";

const base = { annotations: AnnotationsSchema.optional(), _meta: MetaObjectSchema.optional() };

export const TextContentSchema = z.looseObject({ type: z.literal("text"), text: z.string(), ...base });
export type TextContent = z.infer<typeof TextContentSchema>;

export const ImageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
  ...base,
});
export type ImageContent = z.infer<typeof ImageContentSchema>;

export const AudioContentSchema = z.looseObject({
  type: z.literal("audio"),
  data: z.string(),
  mimeType: z.string(),
  ...base,
});
export type AudioContent = z.infer<typeof AudioContentSchema>;

export const TextResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string(),
  _meta: MetaObjectSchema.optional(),
});
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;

export const BlobResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  blob: z.string(),
  _meta: MetaObjectSchema.optional(),
});
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;

export const ResourceContentsSchema = z.union([TextResourceContentsSchema, BlobResourceContentsSchema]);
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/** The listing fields shared by a Resource and a resource_link content block. */
export const resourceFields = {
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().int().optional(),
  icons: z.array(IconSchema).optional(),
  ...base,
};

export const ResourceLinkSchema = z.looseObject({ type: z.literal("resource_link"), ...resourceFields });
export type ResourceLink = z.infer<typeof ResourceLinkSchema>;

export const EmbeddedResourceSchema = z.looseObject({
  type: z.literal("resource"),
  resource: ResourceContentsSchema,
  ...base,
});
export type EmbeddedResource = z.infer<typeof EmbeddedResourceSchema>;

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const ToolUseContentSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  _meta: MetaObjectSchema.optional(),
});
export type ToolUseContent = z.infer<typeof ToolUseContentSchema>;

export const ToolResultContentSchema = z.looseObject({
  type: z.literal("tool_result"),
  toolUseId: z.string(),
  content: z.array(ContentBlockSchema),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type ToolResultContent = z.infer<typeof ToolResultContentSchema>;

export const SamplingMessageContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);
export type SamplingMessageContentBlock = z.infer<typeof SamplingMessageContentBlockSchema>;
