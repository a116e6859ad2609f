import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** The SDK's module that mints the ids of every round; not an export, so reached by its file. */
const RANDOM_ID = join(dirname(fileURLToPath(import.meta.resolve("@roundtrip/sdk"))), "server/random-id.js");

/**
 * A server built into a Node startup snapshot (`node --build-snapshot`, or a single executable made
 * with useSnapshot) starts every process from the same heap. Ids the SDK draws a page at a time must
 * not come back the same in each of them: the page is dropped when the snapshot is taken.
 */
describe("a startup snapshot", () => {
  it("does not hand out the same round ids in two processes started from it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-snapshot-"));
    scratch.push(dir);
    await writeFile(
      join(dir, "entry.mjs"),
      [
        'import { startupSnapshot } from "node:v8";',
        `import { randomId } from ${JSON.stringify(RANDOM_ID)};`,
        "// Drawn while the snapshot is built, as a server constructed then would: the page is full.",
        'randomId(8, "hex");',
        'startupSnapshot.setDeserializeMainFunction(() => console.log(randomId(8, "hex")));',
      ].join("\n"),
    );
    // A snapshot's entry is one script: the ES modules bundled into it, as for a single executable.
    await build({
      entryPoints: [join(dir, "entry.mjs")],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: join(dir, "entry.cjs"),
      logLevel: "silent",
    });
    const blob = join(dir, "snapshot.blob");
    await run(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", join(dir, "entry.cjs")]);
    const first = (await run(process.execPath, ["--snapshot-blob", blob])).stdout.trim();
    const second = (await run(process.execPath, ["--snapshot-blob", blob])).stdout.trim();
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toMatch(/^[0-9a-f]{16}$/);
    expect(second).not.toBe(first);
  }, 60_000);
});
