import ts from "typescript";
import { describe, expect, it } from "vitest";
import { surfaceLines } from "./api-surface.js";

/** A program of one in-memory module, `/entry.ts`, checked with the SDK's strictness. */
function programOf(source: string): ts.Program {
  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    noLib: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const file = ts.createSourceFile("/entry.ts", source, ts.ScriptTarget.ES2022, true);
  return ts.createProgram({
    rootNames: ["/entry.ts"],
    options,
    host: {
      ...host,
      fileExists: (name) => name === "/entry.ts",
      getSourceFile: (name) => (name === "/entry.ts" ? file : undefined),
      readFile: (name) => (name === "/entry.ts" ? source : undefined),
    },
  });
}

function listing(source: string): string[] {
  return surfaceLines(programOf(source), "/entry.ts");
}

/** Lines only one side has: what a reviewer reads in the snapshot's diff. */
function changedLines(before: string[], after: string[]): string[] {
  const remaining = [...before];
  const added = after.filter((line) => {
    const index = remaining.indexOf(line);
    if (index === -1) return true;
    remaining.splice(index, 1);
    return false;
  });
  return [...remaining.map((line) => `- ${line}`), ...added.map((line) => `+ ${line}`)];
}

const BASE = `
export interface Options {
  /** How long to wait. */
  timeoutMs?: number;
  retries: number;
  onEvent?: (event: Event) => void;
}
export interface Event { kind: "start" | "stop"; at: number }
export type Handler = (options: Options) => Event;
export class Worker {
  private readonly queue: Event[] = [];
  #secret = 1;
  constructor(readonly name: string, options?: Options) {}
  run(options: Options): Event { return { kind: "start", at: 0 }; }
  get size(): number { return this.queue.length; }
  /** @internal */
  drain(): void {}
}
export function start(worker: Worker, options?: Options): Handler { return () => ({ kind: "start", at: 0 }); }
`;

describe("surfaceLines: the snapshot's printer", () => {
  it("prints declarations as written, naming the types they use, one line per declaration and member", () => {
    expect(listing(BASE)).toEqual([
      "interface Event",
      '  kind: "start" | "stop"',
      "  at: number",
      "type Handler = (options: Options) => Event",
      "interface Options",
      "  timeoutMs?: number",
      "  retries: number",
      "  onEvent?: (event: Event) => void",
      "function start(worker: Worker, options?: Options): Handler",
      "class Worker",
      "  constructor(name: string, options?: Options)",
      "  run(options: Options): Event",
      "  get size(): number",
    ]);
  });

  it("an optional field added to an interface is one added line, however many signatures use it", () => {
    const before = listing(BASE);
    const after = listing(BASE.replace("  retries: number;", "  retries: number;\n  label?: string;"));
    const diff = changedLines(before, after);
    expect(diff).toEqual(["+   label?: string"]);
    expect(diff.length).toBeLessThanOrEqual(3);
  });

  it("a member added to a class is one added line", () => {
    const before = listing(BASE);
    const after = listing(
      BASE.replace(
        "  get size()",
        "  stop(reason?: string): Promise<void> { return undefined!; }\n  get size()",
      ),
    );
    const diff = changedLines(before, after);
    expect(diff).toEqual(["+   stop(reason?: string): Promise<void>"]);
    expect(diff.length).toBeLessThanOrEqual(3);
  });

  it("leaves out what is @internal, private or #private", () => {
    const lines = listing(BASE).join("\n");
    expect(lines).not.toMatch(/drain|queue|secret/);
    const hidden = listing(
      `${BASE}\n/** @internal */\nexport const HOOK = 1;\n/** @internal */\nexport interface Seam { x: number }`,
    );
    expect(hidden).toEqual(listing(BASE));
  });

  it("prints what a class inherits from a base no entry exports under the class, and only then", () => {
    const source = `
class Core {
  constructor(readonly id: string) {}
  start(): void {}
  stop(): void {}
}
export class Public extends Core {
  override stop(): void {}
}`;
    expect(listing(source)).toEqual([
      "class Public extends Core",
      "  override stop(): void",
      "  readonly id: string",
      "  start(): void",
    ]);
    const exportedBase = listing(source.replace("class Core", "export class Core"));
    expect(
      exportedBase.filter((line) => line.startsWith("class Public") || line === "  start(): void"),
    ).toEqual(["  start(): void", "class Public extends Core"]);
  });
});
