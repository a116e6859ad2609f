import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { documentationPages, packageDir, pageBlocks, syncedFile } from "../scripts/docs-sync.js";

const SYNC = "pnpm --filter @roundtrip/sdk docs:sync";
const examplesDir = join(packageDir, "docs", "examples");

const pages = documentationPages().map((path) => ({
  path,
  name: relative(packageDir, path),
  blocks: pageBlocks(relative(packageDir, path), readFileSync(path, "utf8")),
}));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe("the SDK's documentation", () => {
  it("has its README and a page per concept under docs/", () => {
    expect(pages.map(({ name }) => name)).toContain("README.md");
    expect(pages.length).toBeGreaterThan(1);
  });

  it.each(pages)("$name shows every example file it includes as that file is", ({ path, name }) => {
    expect(readFileSync(path, "utf8") === syncedFile(path), `${name} is out of step: run ${SYNC}`).toBe(true);
  });

  it.each(pages)("$name shows TypeScript only from an example file", ({ name, blocks }) => {
    const inline = blocks.others.filter(({ info }) => /^(ts|typescript|js|javascript)\b/.test(info));
    expect(
      inline.map(({ line }) => `${name}:${line}`),
      "move the code to docs/examples/ and include it",
    ).toEqual([]);
    for (const { file, line, info } of blocks.includes) {
      expect(file.endsWith(".ts") && /^ts( run)?$/.test(info), `${name}:${line}`).toBe(true);
    }
  });

  it("includes every example file, each under docs/examples/", () => {
    const included = new Set(
      pages.flatMap(({ path, blocks }) =>
        blocks.includes.map(({ file }) => relative(examplesDir, join(dirname(path), file))),
      ),
    );
    for (const file of included) expect(file.startsWith(".."), file).toBe(false);
    const files = filesUnder(examplesDir).map((file) => relative(examplesDir, file));
    expect(files.sort()).toEqual([...included].sort());
  });
});
