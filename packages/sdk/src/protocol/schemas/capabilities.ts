import * as z from "zod";
import { JsonObjectSchema } from "./common.js";

export const ClientCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), JsonObjectSchema).optional(),
  roots: z.looseObject({}).optional(),
  sampling: z
    .looseObject({ context: JsonObjectSchema.optional(), tools: JsonObjectSchema.optional() })
    .optional(),
  elicitation: z
    .looseObject({ form: JsonObjectSchema.optional(), url: JsonObjectSchema.optional() })
    .optional(),
  extensions: z.record(z.string(), JsonObjectSchema).optional(),
});
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), JsonObjectSchema).optional(),
  logging: JsonObjectSchema.optional(),
  completions: JsonObjectSchema.optional(),
  prompts: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  resources: z
    .looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() })
    .optional(),
  tools: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  extensions: z.record(z.string(), JsonObjectSchema).optional(),
});
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
