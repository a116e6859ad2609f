import * as z from "zod";
import { ServerCapabilitiesSchema } from "./capabilities.js";
import { cacheableFields } from "./envelope.js";

export const DiscoverResultSchema = z.looseObject({
  ...cacheableFields,
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: z.string().optional(),
});
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
