import pty from "@lydell/node-pty";
import { APP_DIR, CLI_COMMAND, cliEnvironment } from "./run-cli.js";

/** Keys as a terminal sends them. */
export const KEY = { enter: "\r", down: "\x1b[B", up: "\x1b[A", space: " ", backspace: "\x7f" } as const;

const WAIT_MS = 60_000;
// Built from a string so the escape character is not a literal control character in a regex.
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[ -/]*[@-~]|${ESC}[()][0-9A-Za-z]|${ESC}[=>78]`, "g");

/** The CLI in a pseudo-terminal, typed at like a person would. */
export interface PtyCli {
  /** Everything shown so far, escape sequences removed. */
  screen(): string;
  /** Every byte written so far, escape sequences and all, to render or to search for raw controls. */
  raw(): string;
  readonly size: { cols: number; rows: number };
  /** Waits until `text` appears after everything already waited for, then returns. */
  waitFor(text: string | RegExp): Promise<void>;
  type(keys: string): void;
  exited: Promise<number>;
}

export function ptyCli(
  args: readonly string[],
  /** `colors`: run without NO_COLOR, as on a person's colour terminal; every other run has it set. */
  options: { home: string; env?: Record<string, string>; colors?: boolean },
): PtyCli {
  const [command, ...prefix] = CLI_COMMAND;
  const size = { cols: 400, rows: 50 };
  const env: Record<string, string> = {
    ...cliEnvironment(options.home, options.env),
    TERM: "xterm-256color",
  };
  if (options.colors) delete env.NO_COLOR;
  const term = pty.spawn(command, [...prefix, ...args], {
    name: "xterm-256color",
    ...size,
    cwd: APP_DIR,
    env,
  });
  let raw = "";
  let seen = 0;
  const listeners = new Set<() => void>();
  term.onData((data) => {
    raw += data;
    for (const listener of listeners) listener();
  });
  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) =>
    term.onExit(({ exitCode: code }) => {
      exitCode = code;
      resolve(code);
      for (const listener of listeners) listener();
    }),
  );
  const screen = () => raw.replace(ANSI, "");
  return {
    screen,
    raw: () => raw,
    size,
    exited,
    type: (keys) => term.write(keys),
    waitFor(text) {
      return new Promise((resolve, reject) => {
        // A prompt that never shows up fails with the screen as it is, instead of a bare test timeout.
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${String(text)} did not appear within ${WAIT_MS} ms; the screen:\n${screen()}`));
        }, WAIT_MS);
        const check = () => {
          const rest = screen().slice(seen);
          const at = typeof text === "string" ? rest.indexOf(text) : rest.search(text);
          if (at >= 0) {
            seen += at + 1;
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (exitCode !== undefined) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`the CLI exited (${exitCode}) before showing ${String(text)}:\n${screen()}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}
