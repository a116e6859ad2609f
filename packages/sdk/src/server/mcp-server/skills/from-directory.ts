import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { SKILL_MANIFEST } from "../../../protocol/skills.js";
import type { SkillConfig } from "./catalog.js";

/** A skill read from disk, ready for `mcp.skill(skill.name, skill)`. */
export interface SkillSource extends SkillConfig {
  name: string;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep));
}

/** Every file under `dir`; a link is followed only when it stays inside `root`. */
async function filesUnder(root: string, dir: string, files: Record<string, Uint8Array>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    // Editor and OS droppings (.DS_Store, .swp) are not part of a skill.
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    const real = await realpath(path);
    if (!isInside(root, real)) {
      throw new Error(
        `${path} resolves to ${real}, outside the skill directory ${root}; copy the file into the skill instead of linking it`,
      );
    }
    const info = await stat(real);
    if (info.isDirectory()) await filesUnder(root, path, files);
    else if (info.isFile()) files[relative(root, path).split(sep).join("/")] = await readFile(real);
  }
}

async function readSkill(dir: string): Promise<SkillSource> {
  const root = await realpath(dir);
  const files: Record<string, Uint8Array> = {};
  await filesUnder(root, root, files);
  return { name: basename(root), files };
}

/**
 * The skills in a directory on disk: `dir` itself when it holds a SKILL.md, otherwise each of its
 * subdirectories that holds one, named after its directory (the Agent Skills layout, where the
 * directory name equals the front matter's name; `mcp.skill` checks that they agree).
 */
export async function skillsFromDirectory(dir: string): Promise<SkillSource[]> {
  const hasManifest = async (path: string) =>
    stat(join(path, SKILL_MANIFEST)).then(
      (info) => info.isFile(),
      () => false,
    );
  if (await hasManifest(dir)) return [await readSkill(dir)];
  const skills: SkillSource[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && (await hasManifest(path))) skills.push(await readSkill(path));
  }
  if (skills.length === 0) {
    throw new Error(
      `${dir} holds no skill: neither it nor any of its subdirectories has a ${SKILL_MANIFEST}`,
    );
  }
  return skills.sort((a, b) => (a.name < b.name ? -1 : 1));
}
