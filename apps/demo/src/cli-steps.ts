// The CLI as the steps use it: each `roundtrip` command shown as typed, run as a new process with -v,
// its round lines relayed with the instance that answered each, and failed unless it exits as
// expected. In scripted mode the answers come from files and the output is checked; on a terminal
// the person answers and sees the output, so neither applies.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EXIT_CODE_MEANINGS, ExitCode, type ExitCodeValue } from "@roundtrip/client";
import { type CliResult, commandLine, runCli } from "./cli.js";
import { DemoFailure, Interrupted } from "./failures.js";
import { note, paint, say } from "./narration.js";
import type { Stack } from "./stack.js";

/** A scripted CLI run that takes longer than this is stuck, not slow. */
const CLI_TIMEOUT_MS = 120_000;

/** The commands that run rounds: each gets -v, so the CLI prints its rounds as a person would see them. */
const ROUND_COMMANDS = new Set(["call", "prompt", "read", "resume"]);

/** A round the CLI's -v line says it received just now, not one a saved flow brought along. */
const LIVE_ROUND = /^⇄ round (\d+):/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a terminal colour
const COLOUR = /\u001b\[[0-9;]*m/g;

export interface RoundtripOptions {
  /** The exit code that counts as success, or the codes that each do. */
  expect?: ExitCodeValue | readonly ExitCodeValue[];
  /** Hands the CLI this terminal, for a person to answer its prompts. */
  person?: boolean;
  watch?: (stderr: string) => void;
  /** Once this settles, the CLI gets SIGINT, as from Ctrl-C: a piped CLI following a task detaches. */
  interruptWhen?: Promise<unknown>;
}

export interface CliSteps {
  /** `roundtrip <args>`, shown as typed; fails the step unless it exits with `expect`. */
  roundtrip(typed: string[], options?: RoundtripOptions): Promise<CliResult>;
  /** In scripted mode, what the person would otherwise see on the screen must be there. */
  expectOutput(result: CliResult, pattern: RegExp, what: string): string | undefined;
  /** Scripted answers: one file per step, keyed by the input request keys the server asks under. */
  answers(name: string, content: Record<string, unknown>): Promise<string[]>;
  /** `args` in scripted mode only (such as --yes, which would skip what the person should see). */
  scripted(...args: string[]): string[];
}

/** What an exit code says went wrong (apps/client/README.md); nothing for success or an unknown code. */
function exitMeaning(code: number | null): string | undefined {
  if (code === null || code === ExitCode.ok || !Object.hasOwn(EXIT_CODE_MEANINGS, code)) return undefined;
  return EXIT_CODE_MEANINGS[code as ExitCodeValue];
}

/**
 * The CLI's line for a round, then which instance answered that round, as the instance named itself
 * in its response (the demo's balancer reads the header on its way to the CLI, so it is known before
 * the CLI can print its line).
 */
function relay(line: string, answered: string[]): void {
  say(line);
  const round = LIVE_ROUND.exec(line.replace(COLOUR, ""))?.[1];
  if (round === undefined) return;
  const instance = answered.shift();
  note(
    instance === undefined || instance === "?"
      ? `no instance named itself for round ${round}`
      : `instance ${instance} answered round ${round}`,
  );
}

export function cliSteps({
  interactive,
  env,
  answersDir,
  stack,
}: {
  interactive: boolean;
  /** The CLI's environment: its home and the server, and none of the person's own settings. */
  env: NodeJS.ProcessEnv;
  answersDir: string;
  stack: Stack;
}): CliSteps {
  return {
    async roundtrip(typed, { expect = ExitCode.ok, person = false, watch, interruptWhen } = {}) {
      const args = ROUND_COMMANDS.has(typed[0] ?? "") ? [...typed, "-v"] : typed;
      say(paint("bold", `$ ${commandLine(args)}`));
      // Answers from an earlier run that printed no line for them (an error) must not name this run's rounds.
      stack.answered();
      const answered: string[] = [];
      const run = runCli(args, {
        env,
        interactive: person,
        echo: (line) => {
          answered.push(...stack.answered());
          relay(line, answered);
        },
        ...(watch ? { watch } : {}),
        ...(person ? {} : { timeoutMs: CLI_TIMEOUT_MS }),
      });
      let ended = false;
      const interrupt = () => {
        if (!ended) run.child.kill("SIGINT");
      };
      interruptWhen?.then(interrupt, interrupt);
      const result = await run.exited;
      ended = true;
      if (person) {
        // The CLI had the terminal, so its round lines could not be followed one by one: named after it.
        const instances = stack.answered();
        if (instances.length > 0)
          note(`this run's rounds were answered by instance ${instances.join(", then ")}`);
      }
      if (result.timedOut) {
        throw new DemoFailure(`\`${commandLine(args)}\` did not finish within ${CLI_TIMEOUT_MS / 1000} s`);
      }
      if (person && result.code === ExitCode.interrupted) throw new Interrupted();
      const expected: readonly (number | null)[] = typeof expect === "number" ? [expect] : expect;
      if (!expected.includes(result.code)) {
        const last = result.stderr.trim().split("\n").pop();
        const meaning = exitMeaning(result.code);
        throw new DemoFailure(
          `\`${commandLine(args)}\` exited with ${result.code ?? result.signal} instead of ${expected.join(" or ")}` +
            (meaning ? ` (${meaning})` : "") +
            (last ? `: ${last}` : ""),
        );
      }
      return result;
    },
    expectOutput(result, pattern, what) {
      if (interactive) return undefined;
      const match = pattern.exec(result.stdout);
      if (!match) throw new DemoFailure(`expected ${what}, got: ${result.stdout.trim() || "(nothing)"}`);
      return match[0];
    },
    async answers(name, content) {
      if (interactive) return [];
      const file = join(answersDir, `${name}.json`);
      await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
      note(`answers from ${file}: ${JSON.stringify(content)}`);
      return ["--answers", file];
    },
    scripted: (...args) => (interactive ? [] : args),
  };
}
