import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The public surface of every entry point in package.json's `exports`, written to `api/<entry>.api.txt`:
 * its runtime names, and each exported declaration with its type as TypeScript prints it. A change to
 * the API is a diff in those files, reviewed like code; `vitest run -u` rewrites them.
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

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType;

/**
 * One member per line: a long object type printed on one line is unreadable in a diff. Breaks after
 * `{` and `;` and before `}`, outside string literals, indenting by nesting depth.
 */
function layout(text: string, indent: string): string {
  let out = "";
  let depth = 0;
  let quote: string | undefined;
  const newline = () => `\n${indent}${"  ".repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      out += char;
      if (char === "\\") out += text[++i] ?? "";
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === "{") {
      depth++;
      out += `{${newline()}`;
      if (text[i + 1] === " ") i++;
    } else if (char === "}") {
      depth--;
      out = `${out.trimEnd()}${newline()}}`;
    } else if (char === ";") {
      out += `;${newline()}`;
      if (text[i + 1] === " ") i++;
    } else {
      out += char;
    }
  }
  return out.replace(/[ \t]+\n/g, "\n").replace(/\{\n\s*\}/g, "{}");
}

function surfaceOf(program: ts.Program, source: string): string {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(source);
  if (!file) throw new Error(`${source} is not part of the program`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${source} exports nothing`);
  const lines: string[] = [];
  const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
  for (const alias of exported) {
    const symbol = alias.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(alias) : alias;
    const declaration = symbol.declarations?.[0];
    if (!declaration) continue;
    if (symbol.flags & ts.SymbolFlags.Class) {
      lines.push(`class ${alias.name}`);
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      for (const member of checker.getPropertiesOfType(instance)) {
        if (member.name.startsWith("#") || member.name.startsWith("__")) continue;
        const type = checker.getTypeOfSymbolAtLocation(member, declaration);
        lines.push(`  .${member.name}: ${layout(checker.typeToString(type, declaration, FLAGS), "  ")}`);
      }
      continue;
    }
    if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      if (symbol.flags & ts.SymbolFlags.Interface) {
        lines.push(`interface ${alias.name}`);
        for (const member of checker.getPropertiesOfType(type)) {
          const optional = member.flags & ts.SymbolFlags.Optional ? "?" : "";
          const memberType = checker.getTypeOfSymbolAtLocation(member, declaration);
          lines.push(
            `  ${member.name}${optional}: ${layout(checker.typeToString(memberType, declaration, FLAGS), "  ")}`,
          );
        }
      } else {
        const text = checker.typeToString(type, declaration, FLAGS | ts.TypeFormatFlags.InTypeAlias);
        lines.push(`type ${alias.name} = ${layout(text, "")}`);
      }
    }
    if (symbol.flags & ts.SymbolFlags.Value) {
      const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const kind = symbol.flags & ts.SymbolFlags.Function ? "function" : "const";
      const text = checker.typeToString(type, declaration, FLAGS);
      // A schema's shape is the exported type inferred from it, printed in full there.
      const schema = /^z\.Zod\w+/.exec(text)?.[0];
      lines.push(`${kind} ${alias.name}: ${schema ?? layout(text, "")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function allNames(program: ts.Program, source: string): string[] {
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(source)!);
  return checker
    .getExportsOfModule(moduleSymbol!)
    .map((symbol) => symbol.name)
    .sort();
}

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
    async ({ subpath, source, file }) => {
      const runtime = Object.keys(await import(source)).sort();
      // The root is the union of the layers, whose files carry the declarations; it lists names only.
      const declarations =
        subpath === "."
          ? `all names:\n${allNames(program, source)
              .map((name) => `  ${name}`)
              .join("\n")}\n`
          : surfaceOf(program, source);
      // Types the checker names by file are named relative to the package, wherever it is checked out.
      const text =
        `runtime names:\n${runtime.map((name) => `  ${name}`).join("\n")}\n\n${declarations}`.replaceAll(
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
