import {
  type Dockerfile,
  DockerfileParser,
  type From,
  type Instruction,
  type ModifiableInstruction,
} from "dockerfile-ast";
import { readRepoFile } from "./repo.js";

export const DOCKERFILE = "infra/docker/Dockerfile";

export interface Stage {
  /** The `AS` name, if any. */
  readonly name: string | undefined;
  /** What FROM names: an image, or an earlier stage. */
  readonly base: string;
  readonly baseImage: { name: string | null; tag: string | null; digest: string | null };
  readonly instructions: Instruction[];
}

export async function loadDockerfile(): Promise<{ dockerfile: Dockerfile; stages: Stage[] }> {
  const dockerfile = DockerfileParser.parse(await readRepoFile(DOCKERFILE));
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === "FROM") {
      const from = instruction as From;
      stages.push({
        name: from.getBuildStage() ?? undefined,
        base: from.getImage() ?? "",
        baseImage: { name: from.getImageName(), tag: from.getImageTag(), digest: from.getImageDigest() },
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { dockerfile, stages };
}

export const ofKind = (stage: Stage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.getKeyword() === keyword);

/** The flags of an instruction (`--from=build`), by name. */
export function flags(instruction: Instruction): Map<string, string | null> {
  const modifiable = instruction as ModifiableInstruction;
  const all = typeof modifiable.getFlags === "function" ? modifiable.getFlags() : [];
  return new Map(all.map((flag) => [flag.getName(), flag.getValue()]));
}

/** The exec-form array of CMD, ENTRYPOINT or HEALTHCHECK CMD; undefined for the shell form. */
export function execForm(instruction: Instruction): string[] | undefined {
  const raw = instruction.getRawArgumentsContent() ?? "";
  const body = instruction.getKeyword() === "HEALTHCHECK" ? raw.replace(/^(--\S+\s+)*CMD\s+/s, "") : raw;
  try {
    const parsed: unknown = JSON.parse(body.replace(/\\\n/g, " "));
    return Array.isArray(parsed) && parsed.every((part) => typeof part === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A .dockerignore matcher with Docker's rules as they matter here: patterns are paths from the
 * context root, `*` stays within one segment, `**` spans any number, a pattern also covers what lies
 * beneath a matched directory, and the last matching line wins (`!` re-includes).
 */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const include = line.startsWith("!");
      const pattern = (include ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      let source = "";
      for (let i = 0; i < pattern.length; i++) {
        const char = pattern[i]!;
        if (char === "*" && pattern[i + 1] === "*") {
          // "**/" matches zero or more whole segments; a trailing "**" matches anything.
          if (pattern[i + 2] === "/") {
            source += "(?:.*/)?";
            i += 2;
          } else {
            source += ".*";
            i += 1;
          }
        } else if (char === "*") source += "[^/]*";
        else if (char === "?") source += "[^/]";
        else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return { include, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path: string) => {
    const normalized = path.replace(/^\.\/+/, "").replace(/\/+$/, "");
    let ignored = false;
    for (const rule of rules) if (rule.regex.test(normalized)) ignored = !rule.include;
    return ignored;
  };
}
