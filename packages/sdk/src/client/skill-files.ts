import type { ReadResourceResult } from "../protocol/schemas/resources.js";
import type { SkillEntry } from "../protocol/schemas/skills.js";
import { parseFrontmatter } from "../protocol/skill-frontmatter.js";
import { SKILL_MANIFEST, skillDigest } from "../protocol/skills.js";
import { SkillIntegrityError } from "./errors.js";

/** A skill file as read, after its bytes matched the skill entry's digest and size. */
export interface SkillFile {
  readonly uri: string;
  readonly mimeType: string | undefined;
  readonly bytes: Uint8Array;
  /** The content as text, when the server sent text. */
  readonly text: string | undefined;
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) =>
    isDeepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * The file `uri` of `skill` out of a resources/read result, verified against the entry: the size and
 * SHA-256 digest of its raw bytes, and for SKILL.md its front matter against the entry's, field by
 * field. Anything else is a SkillIntegrityError naming the file; its content is never returned.
 */
export function verifySkillFile(skill: SkillEntry, uri: string, result: ReadResourceResult): SkillFile {
  const listed = Array.isArray(skill.resources)
    ? skill.resources.find((resource) => resource.uri === uri)
    : undefined;
  if (!listed) {
    throw new SkillIntegrityError(
      uri,
      "unlisted",
      `the entry of ${skill.uri} lists no such file, so there is no digest to check it against`,
    );
  }
  const content = result.contents.find((entry) => entry.uri === uri) ?? result.contents[0];
  if (!content || (typeof content.text !== "string" && typeof content.blob !== "string")) {
    throw new SkillIntegrityError(uri, "unreadable", "resources/read returned no text or blob for it");
  }
  const text = typeof content.text === "string" ? content.text : undefined;
  const bytes =
    text === undefined
      ? new Uint8Array(Buffer.from(content.blob as string, "base64"))
      : new TextEncoder().encode(text);
  if (bytes.byteLength !== listed.size) {
    throw new SkillIntegrityError(
      uri,
      "size",
      `it is ${bytes.byteLength} bytes, the entry says ${listed.size}`,
    );
  }
  const digest = skillDigest(bytes);
  if (digest !== listed.digest) {
    throw new SkillIntegrityError(uri, "digest", `its digest is ${digest}, the entry says ${listed.digest}`);
  }
  if (uri === skill.uri && uri.endsWith(`/${SKILL_MANIFEST}`)) {
    let frontmatter: unknown;
    try {
      frontmatter = parseFrontmatter(text ?? new TextDecoder().decode(bytes), uri);
    } catch (error) {
      throw new SkillIntegrityError(uri, "frontmatter", (error as Error).message);
    }
    if (!isDeepEqual(frontmatter, skill.frontmatter)) {
      throw new SkillIntegrityError(uri, "frontmatter", "its front matter differs from the entry's");
    }
  }
  return { uri, mimeType: typeof content.mimeType === "string" ? content.mimeType : undefined, bytes, text };
}
