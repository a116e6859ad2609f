import { SKILL_MANIFEST, skillDigest } from "../../../protocol/skills.js";

/** A skill's files by path relative to its directory: text, or raw bytes. */
export type SkillFilesInput = Readonly<Record<string, string | Uint8Array>>;

/** One file as served: its bytes, what they hash to, and how resources/read carries them. */
export interface SkillFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  /** The UTF-8 text, or undefined for bytes that are not UTF-8 (served as a blob). */
  readonly text: string | undefined;
  readonly mimeType: string;
  readonly digest: string;
  readonly size: number;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  js: "text/javascript",
  ts: "text/x-typescript",
  html: "text/html",
  csv: "text/csv",
};

function mimeTypeOf(path: string): string {
  const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  return MIME_TYPES[extension] ?? "application/octet-stream";
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Why `path` cannot name a file inside a skill's directory, or undefined when it can. */
function pathProblem(path: string): string | undefined {
  if (path.length === 0) return "is empty";
  if (path.includes("\\")) return "uses '\\'; separate directories with '/'";
  if (path.startsWith("/")) return "is absolute; give it relative to the skill's directory";
  const segments = path.split("/");
  if (segments.some((segment) => segment === ".." || segment === "." || segment === "")) {
    return "has an empty, '.' or '..' segment, so it could name a file outside the skill's directory";
  }
  if (/[?#%\s]/.test(path))
    return "has a character ('?', '#', '%' or whitespace) a skill:// URI cannot carry as is";
  return undefined;
}

/** The extension's bounds on one skill, SKILL.md included: hosts may refuse a skill beyond them. */
const MAX_FILES = 512;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/** The files of skill `name`, checked: safe relative paths, SKILL.md among them, within the bounds. */
export function skillFiles(name: string, files: SkillFilesInput): Map<string, SkillFile> {
  if (typeof files !== "object" || files === null) {
    throw new TypeError(
      `Skill '${name}' needs files: an object of paths to contents, with ${SKILL_MANIFEST}`,
    );
  }
  const checked = new Map<string, SkillFile>();
  for (const [path, content] of Object.entries(files)) {
    const problem = pathProblem(path);
    if (problem) throw new TypeError(`Skill '${name}': the file path '${path}' ${problem}`);
    if (typeof content !== "string" && !(content instanceof Uint8Array)) {
      throw new TypeError(`Skill '${name}': the file '${path}' must be a string or a Uint8Array`);
    }
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : new Uint8Array(content);
    checked.set(path, {
      path,
      bytes,
      text: typeof content === "string" ? content : textOf(bytes),
      mimeType: mimeTypeOf(path),
      digest: skillDigest(bytes),
      size: bytes.byteLength,
    });
  }
  const total = [...checked.values()].reduce((sum, file) => sum + file.size, 0);
  if (checked.size > MAX_FILES || total > MAX_TOTAL_BYTES) {
    throw new TypeError(
      `Skill '${name}' has ${checked.size} files and ${total} bytes; a skill may have at most ${MAX_FILES} files and ${MAX_TOTAL_BYTES} bytes (16 MiB), so split it or serve large data as ordinary resources`,
    );
  }
  if (checked.get(SKILL_MANIFEST)?.text === undefined) {
    throw new TypeError(`Skill '${name}' needs a ${SKILL_MANIFEST} (UTF-8 text) at the root of its files`);
  }
  return checked;
}
