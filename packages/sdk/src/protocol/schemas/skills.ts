import * as z from "zod";
import { SKILL_DIGEST } from "../skills.js";
import { JsonObjectSchema } from "./common.js";
import { resourceFields } from "./content.js";
import { cacheableFields, PaginatedParamsSchema, RequestParamsSchema, resultFields } from "./envelope.js";

/** What a server declares under `capabilities.extensions["io.modelcontextprotocol/skills"]`. */
export const SkillsCapabilitySchema = z.looseObject({ directoryRead: z.boolean().optional() });
export type SkillsCapability = z.infer<typeof SkillsCapabilitySchema>;

/** One file of a skill: where it is read, and what its bytes must hash to and measure. */
export const SkillResourceSchema = z.looseObject({
  uri: z.string(),
  digest: z.string().regex(SKILL_DIGEST),
  size: z.number().int().min(0),
});
export type SkillResource = z.infer<typeof SkillResourceSchema>;

/** SKILL.md's YAML front matter as JSON; the Agent Skills specification requires these two fields. */
export const SkillFrontmatterSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().min(1),
  metadata: JsonObjectSchema.optional(),
});
export type SkillFrontmatter = z.infer<typeof SkillFrontmatterSchema>;

/**
 * A skill as `skills/list` and `skills/get` describe it. `resources` lists every file, SKILL.md
 * included, or is `"dynamic"` for a skill that publishes no manifest of its files.
 */
export const SkillEntrySchema = z.looseObject({
  uri: z.string(),
  frontmatter: SkillFrontmatterSchema,
  resources: z.union([z.array(SkillResourceSchema), z.literal("dynamic")]),
});
export type SkillEntry = z.infer<typeof SkillEntrySchema>;

export const ListSkillsResultSchema = z.looseObject({
  ...cacheableFields,
  skills: z.array(SkillEntrySchema),
  nextCursor: z.string().optional(),
});
export type ListSkillsResult = z.infer<typeof ListSkillsResultSchema>;

export const GetSkillParamsSchema = RequestParamsSchema.extend({ uri: z.string() });
export type GetSkillParams = z.infer<typeof GetSkillParamsSchema>;

/** A single entry is not a list: no cursor. */
export const GetSkillResultSchema = z.looseObject({ ...cacheableFields, skill: SkillEntrySchema });
export type GetSkillResult = z.infer<typeof GetSkillResultSchema>;

export const ReadResourceDirectoryParamsSchema = PaginatedParamsSchema.extend({ uri: z.string() });
export type ReadResourceDirectoryParams = z.infer<typeof ReadResourceDirectoryParamsSchema>;

/** A directory's direct children; a subdirectory has mimeType `inode/directory`. */
export const ReadResourceDirectoryResultSchema = z.looseObject({
  ...resultFields,
  resources: z.array(z.looseObject(resourceFields)),
  nextCursor: z.string().optional(),
});
export type ReadResourceDirectoryResult = z.infer<typeof ReadResourceDirectoryResultSchema>;
