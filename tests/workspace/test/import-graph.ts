import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";

/** Each file, by absolute path, with the files it imports. */
export type ImportGraph = Map<string, Set<string>>;

/** Every `.ts` file under `roots`, with the files of those roots its relative imports name. */
export async function importGraph(roots: readonly string[]): Promise<ImportGraph> {
  const files = new Set<string>();
  for (const root of roots) {
    for (const entry of await readdir(root, { recursive: true })) {
      if (entry.endsWith(".ts") && !entry.split(/[\\/]/).includes("node_modules")) {
        files.add(join(root, entry));
      }
    }
  }
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const imported = new Set<string>();
    for (const specifier of relativeSpecifiers(file, await readFile(file, "utf8"))) {
      const target = resolveSpecifier(file, specifier, files);
      if (target !== undefined) imported.add(target);
    }
    graph.set(file, imported);
  }
  return graph;
}

/**
 * The specifiers of a file's static `import ... from` and `export ... from`, type-only ones included:
 * a type-only edge is erased from the JavaScript, but it still ties the two modules together, so
 * neither can be moved, read or built without the other, and a cycle that is half type-only (as the
 * Redis entry point and its bus once formed) is the same knot.
 */
function relativeSpecifiers(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of parsed.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) {
      specifiers.push(specifier.text);
    }
  }
  return specifiers;
}

/** `./x.js` is written for `./x.ts`; a specifier that names no file of the graph is left out. */
function resolveSpecifier(from: string, specifier: string, files: Set<string>): string | undefined {
  const path = resolve(dirname(from), specifier);
  const candidates = path.endsWith(".js")
    ? [`${path.slice(0, -3)}.ts`]
    : [path, `${path}.ts`, join(path, "index.ts")];
  return candidates.find((candidate) => files.has(candidate));
}

/**
 * A knot of the graph: files that each reach all the others through imports (a strongly connected
 * component of more than one file, or a file importing itself), and one cycle through them, as the
 * files in import order with the first repeated at the end.
 */
export interface ImportCycle {
  files: string[];
  cycle: string[];
}

export function importCycles(graph: ImportGraph): ImportCycle[] {
  return components(graph)
    .filter((component) => component.length > 1 || graph.get(component[0]!)?.has(component[0]!))
    .map((files) => ({ files, cycle: cycleThrough(graph, new Set(files)) }));
}

/** Tarjan's strongly connected components. */
function components(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

/** The shortest way from the component's first file back to itself, staying inside the component. */
function cycleThrough(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component][0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
