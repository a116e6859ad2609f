import { createHash } from "node:crypto";

/** The skills extension's identifier: its capability key under `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** The scheme skill files are served under: `skill://<name>/<path>`. */
export const SKILL_URI_SCHEME = "skill";

/** Every skill's manifest, at the root of its directory. */
export const SKILL_MANIFEST = "SKILL.md";

/** The mimeType a directory listing gives a child that is itself a directory. */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/**
 * The Agent Skills naming rule the extension holds names to: 1-64 lowercase letters, digits and
 * hyphens, no leading, trailing or consecutive hyphen.
 */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** `sha256:` and 64 lowercase hex digits, over the file's raw bytes. */
export const SKILL_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The URI of a file of a skill; `path` is relative to the skill's directory, SKILL.md by default. */
export function skillUri(name: string, path: string = SKILL_MANIFEST): string {
  return `${SKILL_URI_SCHEME}://${name}/${path}`;
}

/** The URI of a skill's directory, or of a directory inside it. */
export function skillDirectoryUri(name: string, path = ""): string {
  return path === "" ? `${SKILL_URI_SCHEME}://${name}` : `${SKILL_URI_SCHEME}://${name}/${path}`;
}

/** The skill name a manifest URI ends in (`skill://a/b/NAME/SKILL.md`), or undefined for another URI. */
export function skillNameOf(uri: string): string | undefined {
  const start = uri.indexOf("://");
  if (start < 0) return undefined;
  const segments = uri
    .slice(start + 3)
    .split("/")
    .filter((segment) => segment.length > 0);
  if (segments.length < 2 || segments.at(-1) !== SKILL_MANIFEST) return undefined;
  return segments.at(-2);
}

/** The digest the extension publishes for a file: SHA-256 over exactly the bytes served. */
export function skillDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * The requests the skills extension adds to the method table; the official 2026-07-28 schema does not
 * name them, so the table's checks against it leave them out.
 */
export const SKILLS_METHODS: readonly string[] = ["resources/directory/read", "skills/list", "skills/get"];
