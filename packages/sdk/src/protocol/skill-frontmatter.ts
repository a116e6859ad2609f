import { parse } from "yaml";
import { isRecord } from "./is-record.js";
import { type SkillFrontmatter, SkillFrontmatterSchema } from "./schemas/skills.js";

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * SKILL.md's front matter as the JSON object `skills/list` publishes verbatim: the leading `---`
 * block, parsed as YAML, with the `name` and `description` the Agent Skills specification requires.
 */
export function parseFrontmatter(text: string, where: string): SkillFrontmatter {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const block = BLOCK.exec(body);
  if (!block) {
    throw new TypeError(
      `${where} has no front matter: it must begin with a '---' line, YAML with at least name and description, and a closing '---' line`,
    );
  }
  let value: unknown;
  try {
    value = parse(block[1] ?? "");
  } catch (error) {
    throw new TypeError(`${where} front matter is not valid YAML: ${(error as Error).message}`);
  }
  if (!isRecord(value))
    throw new TypeError(`${where} front matter must be a YAML mapping with name and description`);
  const parsed = SkillFrontmatterSchema.safeParse(value);
  if (!parsed.success) {
    const missing = (["name", "description"] as const).filter(
      (key) => typeof value[key] !== "string" || (value[key] as string).length === 0,
    );
    const detail =
      missing.length > 0
        ? `needs a non-empty ${missing.join(" and ")}`
        : "has a metadata field that is not a mapping";
    throw new TypeError(`${where} front matter ${detail}`);
  }
  // JSON round trip: YAML dates and the like become the strings a JSON peer will see.
  return JSON.parse(JSON.stringify(parsed.data)) as SkillFrontmatter;
}
