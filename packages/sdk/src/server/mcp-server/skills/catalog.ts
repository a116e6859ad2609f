import { McpError } from "../../../protocol/errors.js";
import type { Resource } from "../../../protocol/schemas/resources.js";
import type { SkillEntry, SkillFrontmatter } from "../../../protocol/schemas/skills.js";
import { parseFrontmatter } from "../../../protocol/skill-frontmatter.js";
import {
  DIRECTORY_MIME_TYPE,
  SKILL_MANIFEST,
  SKILL_NAME,
  skillDirectoryUri,
  skillUri,
} from "../../../protocol/skills.js";
import type { ResultObject } from "../../middleware.js";
import { page } from "./cursor.js";
import { type SkillFile, type SkillFilesInput, skillFiles } from "./skill-files.js";

export interface SkillConfig {
  /** Every file of the skill by path relative to its directory; `SKILL.md` is required. */
  files: SkillFilesInput;
}

export interface SkillCatalogOptions {
  /** Entries per page of `skills/list` and `resources/directory/read`. Default 50. */
  pageSize?: number;
}

interface Skill {
  readonly name: string;
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  readonly files: ReadonlyMap<string, SkillFile>;
}

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/**
 * The skills a server serves and everything the extension answers about them: the entries of
 * `skills/list` and `skills/get`, each file as a resource, and directory listings. Registration checks
 * everything, so a bad skill is refused before anything is served.
 */
export class SkillCatalog {
  readonly #skills = new Map<string, Skill>();
  readonly #pageSize: number;

  constructor(options: SkillCatalogOptions = {}) {
    const pageSize = options.pageSize ?? 50;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new TypeError(`pageSize must be a positive integer, got ${String(options.pageSize)}`);
    }
    this.#pageSize = pageSize;
  }

  /** Adds a skill; returns what removes it. Refuses a bad name, files or front matter, and a duplicate. */
  add(name: string, config: SkillConfig): () => boolean {
    if (typeof name !== "string" || !SKILL_NAME.test(name)) {
      throw new TypeError(
        `Skill name '${String(name)}' is invalid: use 1-64 lowercase letters, digits and hyphens, with no leading, trailing or doubled hyphen`,
      );
    }
    if (this.#skills.has(name)) {
      throw new Error(`A skill named '${name}' is already registered; remove it first or use another name`);
    }
    const files = skillFiles(name, config?.files);
    const manifest = files.get(SKILL_MANIFEST)?.text ?? "";
    const frontmatter = parseFrontmatter(manifest, `Skill '${name}' ${SKILL_MANIFEST}`);
    if (frontmatter.name !== name) {
      throw new TypeError(
        `Skill '${name}' ${SKILL_MANIFEST} front matter names it '${frontmatter.name}'; the name must match the skill's`,
      );
    }
    const skill = { name, uri: skillUri(name), frontmatter, files };
    this.#skills.set(name, skill);
    return () => this.#skills.get(name) === skill && this.#skills.delete(name);
  }

  get size(): number {
    return this.#skills.size;
  }

  /** One page of `skills/list`. */
  list(cursor: string | undefined): ResultObject {
    const sorted = [...this.#skills.values()].sort(byUri);
    const { entries, nextCursor } = page(sorted, (skill) => skill.uri, cursor, this.#pageSize, "skills/list");
    return { skills: entries.map(entryOf), ...(nextCursor ? { nextCursor } : {}) };
  }

  /** `skills/get`: the entry of the skill whose SKILL.md is at `uri`. */
  get(uri: string): ResultObject {
    const skill = [...this.#skills.values()].find((candidate) => candidate.uri === uri);
    if (!skill) {
      throw McpError.invalidParams(`Unknown skill: ${uri}; skills/list names the skills this server serves`, {
        uri,
      });
    }
    return { skill: entryOf(skill) };
  }

  /** Every file of every skill as a resource, SKILL.md named and described by its front matter. */
  resources(): Resource[] {
    return [...this.#skills.values()].flatMap((skill) =>
      [...skill.files.values()].map((file) => resourceOf(skill, file)),
    );
  }

  /** The file served at `uri`, or undefined when no skill has it. */
  file(uri: string): SkillFile | undefined {
    const found = this.#locate(uri);
    return found ? found.skill.files.get(found.path) : undefined;
  }

  /** `resources/read` of a skill file. */
  read(uri: string): ResultObject {
    const file = this.file(uri);
    if (!file) throw McpError.invalidParams(`Resource not found: ${uri}`, { uri });
    const content =
      file.text === undefined ? { blob: Buffer.from(file.bytes).toString("base64") } : { text: file.text };
    return { contents: [{ uri, mimeType: file.mimeType, ...content }] };
  }

  /** `resources/directory/read`: one page of a skill directory's direct children. */
  directory(uri: string, cursor: string | undefined): ResultObject {
    const found = this.#locate(uri);
    const prefix = found?.path === "" ? "" : `${found?.path}/`;
    const isDirectory =
      found !== undefined && [...found.skill.files.keys()].some((path) => path.startsWith(prefix));
    if (!found || !isDirectory) {
      throw McpError.invalidParams(
        `Not a directory: ${uri}; resources/directory/read takes a skill's directory, such as skill://<name>`,
        { uri },
      );
    }
    const children = new Map<string, Resource>();
    for (const file of found.skill.files.values()) {
      if (!file.path.startsWith(prefix)) continue;
      const [head, ...rest] = file.path.slice(prefix.length).split("/");
      const childPath = `${prefix}${head}`;
      const child: Resource =
        rest.length === 0
          ? resourceOf(found.skill, file)
          : {
              uri: skillDirectoryUri(found.skill.name, childPath),
              name: head ?? childPath,
              mimeType: DIRECTORY_MIME_TYPE,
            };
      children.set(child.uri, child);
    }
    const sorted = [...children.values()].sort(byUri);
    const { entries, nextCursor } = page(
      sorted,
      (child) => child.uri,
      cursor,
      this.#pageSize,
      "resources/directory/read",
    );
    return { resources: entries, ...(nextCursor ? { nextCursor } : {}) };
  }

  /** The skill and the path inside it that `uri` names ("" for its directory). */
  #locate(uri: string): { skill: Skill; path: string } | undefined {
    const match = /^skill:\/\/([^/]+)(?:\/(.*))?$/.exec(uri);
    const skill = match?.[1] === undefined ? undefined : this.#skills.get(match[1]);
    if (!skill) return undefined;
    return { skill, path: (match?.[2] ?? "").replace(/\/$/, "") };
  }
}

function entryOf(skill: Skill): SkillEntry {
  return {
    uri: skill.uri,
    frontmatter: skill.frontmatter,
    resources: [...skill.files.values()]
      .map((file) => ({ uri: skillUri(skill.name, file.path), digest: file.digest, size: file.size }))
      .sort(byUri),
  };
}

function resourceOf(skill: Skill, file: SkillFile): Resource {
  const uri = skillUri(skill.name, file.path);
  if (file.path === SKILL_MANIFEST) {
    const { name, description } = skill.frontmatter;
    return { uri, name, description, mimeType: file.mimeType, size: file.size };
  }
  return { uri, name: `${skill.name}/${file.path}`, mimeType: file.mimeType, size: file.size };
}
