// What the demo itself says to the person watching, as opposed to the CLI's output, which the CLI
// steps relay line for line. Everything goes to stdout, so the demo reads in the order it happened.
import { styleText } from "node:util";
import type { FleetServices } from "./fleet-services.js";
import type { Stack } from "./stack.js";

// hasColors() honours NO_COLOR, FORCE_COLOR and TERM=dumb.
const colors = Boolean(process.stdout.isTTY && process.stdout.hasColors?.());

export const paint = (format: Parameters<typeof styleText>[0], text: string) =>
  colors ? styleText(format, text) : text;
export const say = (line = "") => process.stdout.write(`${line}\n`);
/** The demo's own remarks, set apart from the CLI's lines they sit between. */
export const note = (line: string) => say(paint("cyan", `  » ${line}`));

/** A result as one line of at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A section of the run: a step, or the look at Redis after the steps. */
export function heading(text: string): void {
  say();
  say(paint(["bold", "green"], `── ${text}`));
}

export function greet(interactive: boolean): void {
  say(paint("bold", "Roundtrip demo: MCP 2026-07-28 multi round-trip requests, end to end"));
  say(
    interactive
      ? "Interactive: you answer the forms and the sampling request in this terminal (pnpm demo --scripted answers them for you)."
      : "Scripted: answers come from files this demo writes; nothing is asked.",
  );
}

/** What runs where, and how to type the same commands by hand. */
export function describeStack(
  stack: Stack,
  fleet: FleetServices | undefined,
  home: string,
  bin: string,
): void {
  say();
  say(
    `Development authorization server  ${stack.issuer}   (in memory, users alice and bob; development only)`,
  );
  if (fleet) {
    say(`KMS emulator (moto)               ${fleet.kms.endpoint}   key ${fleet.kms.keyAlias}`);
    say(`Redis, shared by the instances    ${fleet.redisUrl}`);
    say(`Reference MCP server              ${stack.url}   (instances A and B behind one URL)`);
  } else {
    say(`Reference MCP server              ${stack.url}`);
  }
  for (const line of stack.keyLines) say(`  ${line}`);
  say("Every step runs the CLI as a new process, as if you had typed:");
  say(`  export ROUNDTRIP_SERVER=${stack.url} ROUNDTRIP_HOME=${home}`);
  say(`  alias roundtrip="node ${bin}"`);
  say(
    paint(
      "dim",
      "Lines starting with ⇄ are the CLI's own (-v): each round, what it answered, what the server asked.",
    ),
  );
}

export interface StepResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface Failure {
  step: string;
  message: string;
}

/** One line per step, in the order of `names`, then the verdict; says whether the run succeeded. */
export function summarize(
  names: readonly string[],
  results: readonly StepResult[],
  failures: readonly Failure[],
  seconds: string,
): boolean {
  say();
  say(paint("bold", "Summary"));
  const width = Math.max(...names.map((name) => name.length));
  for (const name of names) {
    const result = results.find((r) => r.name === name);
    const mark = result === undefined ? "-" : result.ok ? paint("green", "✓") : paint("red", "✗");
    const detail = result === undefined ? "not run" : oneLine(result.detail, 90);
    const time = result === undefined ? "" : ` (${(result.ms / 1000).toFixed(1)} s)`;
    say(`  ${mark} ${name.padEnd(width)}  ${detail}${time}`);
  }
  if (failures.length > 0) {
    const failed = failures.map((failure) => failure.step).join(", ");
    process.stderr.write(
      `\ndemo: ${failures.length} of ${names.length} steps failed (${failed}): ${failures[0]?.message}\n`,
    );
    return false;
  }
  say(`All ${names.length} steps succeeded in ${seconds} s.`);
  return true;
}
