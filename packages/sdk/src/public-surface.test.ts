import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { surfaceLines } from "./test-support/api-surface.js";

/**
 * The public surface of every entry point in package.json's `exports`, written to `api/<entry>.api.txt`:
 * its runtime names, then each exported declaration as its source writes it, one line per declaration
 * and one per member (see `surfaceLines`). Every entry's file lists every name that entry exports, once,
 * whether the entry declares it or re-exports it, so a re-exported declaration appears in each entry that
 * exports it. A change to the API is a diff in those files, reviewed like code; `vitest run -u` rewrites
 * them.
 */

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(`${packageDir}package.json`, "utf8")) as {
  exports: Record<string, { types: string; default: string }>;
};

/** `./dist/server/index.js` is built from `src/server/index.ts`. */
function sourceOf(built: string): string {
  return `${packageDir}${built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")}`;
}

const entries = Object.entries(manifest.exports).map(([subpath, target]) => ({
  subpath,
  source: sourceOf(target.default),
  file: `${subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-")}.api.txt`,
}));

describe("the public surface of @roundtrip/sdk", () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${packageDir}tsconfig.build.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.build.json could not be read");
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    config.options,
  );

  it.each(entries)(
    "$subpath: runtime names and declarations are the reviewed ones",
    async ({ source, file }) => {
      const runtime = Object.keys(await import(source)).sort();
      const declarations = surfaceLines(program, source).join("\n");
      // Types the checker names by file are named relative to the package, wherever it is checked out.
      const text =
        `runtime names:\n${runtime.map((name) => `  ${name}`).join("\n")}\n\n${declarations}\n`.replaceAll(
          `import("${packageDir}`,
          'import("',
        );
      await expect(text).toMatchFileSnapshot(`../api/${file}`);
    },
  );

  it("exports by name only: no entry point re-exports a whole module it does not curate", () => {
    for (const { source } of entries) {
      const text = readFileSync(source, "utf8");
      const stars = [...text.matchAll(/^export \* from "(.+)";$/gm)].map((match) => match[1]);
      // The root is the one exception: it is the union of the three layers' curated entry points.
      const allowed = source.endsWith("src/index.ts")
        ? ["./client/index.js", "./protocol/index.js", "./server/index.js"]
        : [];
      expect(
        stars.filter((star) => !allowed.includes(star!)),
        source,
      ).toEqual([]);
    }
  });
});
