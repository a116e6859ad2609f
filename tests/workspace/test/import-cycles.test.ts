import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles, importGraph } from "./import-graph.js";
import { repoRoot } from "./repository.js";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** The cycles under `roots`: one through each knot, and every file of the knot, relative to `base`. */
async function cyclesUnder(base: string, roots: string[]): Promise<string[]> {
  const knots = importCycles(await importGraph(roots));
  return knots.map(({ files, cycle }) => {
    const path = cycle.map((file) => relative(base, file)).join(" -> ");
    return `${path} (the knot: ${files.map((file) => relative(base, file)).join(", ")})`;
  });
}

describe("import cycles", () => {
  it("the packages' sources have none: each module can be read, moved and loaded on its own", async () => {
    const packages = join(repoRoot, "packages");
    const roots: string[] = [];
    for (const entry of await readdir(packages, { withFileTypes: true })) {
      if (entry.isDirectory()) roots.push(join(packages, entry.name, "src"));
    }
    expect(roots.length).toBeGreaterThan(1);
    expect(await cyclesUnder(repoRoot, roots)).toEqual([]);
  });

  it("are found when one is written, a type-only import closing it, and named by their files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-cycles-"));
    scratch.push(dir);
    await mkdir(join(dir, "store"));
    await writeFile(join(dir, "index.ts"), 'export { Store } from "./store/store.js";\n');
    await writeFile(
      join(dir, "store", "store.ts"),
      'import { send } from "./send.js";\nexport class Store {}\n',
    );
    await writeFile(
      join(dir, "store", "send.ts"),
      'import type { Store } from "../index.js";\nexport const send = (store: Store) => store;\n',
    );
    await writeFile(
      join(dir, "leaf.ts"),
      'import { Store } from "./index.js";\nexport const leaf = Store;\n',
    );
    expect(await cyclesUnder(dir, [dir])).toEqual([
      "index.ts -> store/store.ts -> store/send.ts -> index.ts (the knot: index.ts, store/send.ts, store/store.ts)",
    ]);
  });

  it("are not found in a tree whose imports only point one way", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-cycles-"));
    scratch.push(dir);
    await writeFile(join(dir, "a.ts"), 'import { b } from "./b.js";\nexport const a = b;\n');
    await writeFile(join(dir, "b.ts"), 'export { c as b } from "./c.js";\n');
    await writeFile(join(dir, "c.ts"), "export const c = 1;\n");
    expect(await cyclesUnder(dir, [dir])).toEqual([]);
  });
});
