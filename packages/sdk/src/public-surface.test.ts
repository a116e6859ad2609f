import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { exportedNames, surfaceLines } from "./test-support/api-surface.js";

/**
 * The public surface of every entry point in package.json's `exports`, written to `api/<entry>.api.txt`:
 * each name it exports with its declaration as the source writes it, one line
 * per declaration and one per member (see `surfaceLines`). One rule for re-exports: a declaration prints
 * once in the whole folder, in the first entry point of `exports` order, the root last, that exports it;
 * every other entry that exports it lists the name with a pointer there (`AuthInfo: see server.api.txt`).
 * So the root, which picks its names from the layers, is a list of pointers, and a changed declaration
 * is a diff in one file. A change to the API is a diff in those files, reviewed like code;
 * `vitest run -u` rewrites them. Which names exist at run time is held, against the built module, by
 * the entry-points page test below, so the listing does not repeat them.
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

  // The root goes last: its names are the layers', so their declarations print in the layers' files.
  const printedIn = new Map<ts.Declaration, string>();
  const rootLast = [
    ...entries.filter(({ subpath }) => subpath !== "."),
    ...entries.filter(({ subpath }) => subpath === "."),
  ];
  for (const { source, file } of rootLast) {
    for (const { declarations } of exportedNames(program, source)) {
      if (!printedIn.has(declarations[0]!)) printedIn.set(declarations[0]!, file);
    }
  }

  it.each(entries)("$subpath: declarations are the reviewed ones", async ({ file, source }) => {
    const elsewhere = (declaration: ts.Declaration) => {
      const home = printedIn.get(declaration);
      return home === file ? undefined : home;
    };
    const declarations = surfaceLines(program, source, elsewhere).join("\n");
    // Types the checker names by file are named relative to the package, wherever it is checked out.
    const text = `${declarations}\n`.replaceAll(`import("${packageDir}`, 'import("');
    await expect(text).toMatchFileSnapshot(`../api/${file}`);
  });

  it("exports by name only: no entry point re-exports a whole module", () => {
    for (const { source } of entries) {
      const stars = [...readFileSync(source, "utf8").matchAll(/^export \* from "(.+)";$/gm)];
      expect(
        stars.map((match) => match[1]),
        source,
      ).toEqual([]);
    }
  });

  it("the root picks from the layers: each of its names is also on /protocol, /server or /client", () => {
    const checker = program.getTypeChecker();
    const namesOf = (subpath: string) => {
      const file = program.getSourceFile(entries.find((entry) => entry.subpath === subpath)!.source)!;
      return checker.getExportsOfModule(checker.getSymbolAtLocation(file)!).map((symbol) => symbol.name);
    };
    const layers = new Set(["./protocol", "./server", "./client"].flatMap(namesOf));
    // AnySdkError is the union of the three layers' errors, so only the root can declare it.
    expect(namesOf(".").filter((name) => !layers.has(name))).toEqual(["AnySdkError"]);
  });

  describe("docs/entry-points.md documents exactly what each entry point exports", () => {
    const page = parseEntryPointsPage(readFileSync(`${packageDir}docs/entry-points.md`, "utf8"));
    const specifier = (subpath: string) => `@roundtrip/sdk${subpath.slice(1)}`;

    it("has one section per entry point, in package.json's exports order", () => {
      expect(page.map((section) => section.entry)).toEqual(entries.map(({ subpath }) => specifier(subpath)));
    });

    it.each(entries)(
      "$subpath: the section names every export once, and nothing else",
      async ({ subpath, source }) => {
        const section = page.find((candidate) => candidate.entry === specifier(subpath));
        const listed = section?.rows.map((row) => row.name) ?? [];
        const exported = exportedNames(program, source).map(({ name }) => name);
        expect(new Set(listed).size, "a name listed twice").toBe(listed.length);
        expect(
          exported.filter((name) => !listed.includes(name)),
          "exported but not documented",
        ).toEqual([]);
        expect(
          listed.filter((name) => !exported.includes(name)),
          "documented but not exported",
        ).toEqual([]);
        // The page says which names exist at run time; the built module is the judge.
        const runtime = Object.keys(await import(source)).sort();
        const documentedRuntime = (section?.rows ?? [])
          .filter((row) => /^(class|function|const)$/.test(row.kind))
          .map((row) => row.name)
          .sort();
        expect(documentedRuntime).toEqual(runtime);
      },
    );
  });
});

interface EntrySection {
  readonly entry: string;
  readonly rows: readonly { readonly name: string; readonly kind: string }[];
}

/** `## \`@roundtrip/sdk/x\`` opens a section; each table row under it is `| \`name\` | kind | what it is |`. */
function parseEntryPointsPage(text: string): EntrySection[] {
  const sections: { entry: string; rows: { name: string; kind: string }[] }[] = [];
  for (const line of text.split("\n")) {
    const heading = /^## `(@roundtrip\/sdk[^`]*)`$/.exec(line);
    if (heading) sections.push({ entry: heading[1]!, rows: [] });
    const row = /^\| `([^`]+)` \| ([^|]+?) \|/.exec(line);
    if (row && sections.length > 0) sections.at(-1)!.rows.push({ name: row[1]!, kind: row[2]! });
  }
  return sections;
}
