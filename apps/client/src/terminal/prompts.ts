import { checkbox, confirm, input, select } from "@inquirer/prompts";
import { promptContext } from "../prompt-context.js";
import type { Terminal } from "../terminal.js";
import { safeInline } from "./safe-text.js";

/**
 * The prompts of the CLI, drawn on stderr. Messages, choices, defaults and validation messages may
 * all hold a server's words, so each passes through safeInline before inquirer draws it; the values
 * the person picks or accepts are the server's own, unchanged.
 */

type Check<T> = (value: T) => string | true;

const safeCheck =
  <T>(validate: Check<T> | undefined) =>
  (value: T) => {
    const verdict = validate ? validate(value) : true;
    return verdict === true ? true : safeInline(verdict);
  };

export interface Choice<T> {
  name: string;
  value: T;
}

export function askSelect<T>(
  terminal: Terminal,
  config: { message: string; choices: readonly Choice<T>[]; default?: T },
  signal?: AbortSignal,
): Promise<T> {
  return select<T>(
    {
      message: safeInline(config.message),
      choices: config.choices.map((choice) => ({ name: safeInline(choice.name), value: choice.value })),
      ...(config.default !== undefined ? { default: config.default } : {}),
    },
    promptContext(terminal, signal),
  );
}

export function askCheckbox<T>(
  terminal: Terminal,
  config: {
    message: string;
    choices: readonly (Choice<T> & { checked: boolean })[];
    validate?: Check<readonly T[]>;
  },
): Promise<T[]> {
  const check = safeCheck(config.validate);
  return checkbox<T>(
    {
      message: safeInline(config.message),
      choices: config.choices.map((choice) => ({ ...choice, name: safeInline(choice.name) })),
      validate: (chosen) => check(chosen.map((choice) => choice.value)),
    },
    promptContext(terminal),
  );
}

export function askConfirm(
  terminal: Terminal,
  config: { message: string; default: boolean },
  signal?: AbortSignal,
): Promise<boolean> {
  return confirm(
    { message: safeInline(config.message), default: config.default },
    promptContext(terminal, signal),
  );
}

/** A line of text; a default (which may be the server's) is shown escaped and sent as it is. */
export function askInput(
  terminal: Terminal,
  config: { message: string; default?: string; validate?: Check<string> },
  signal?: AbortSignal,
): Promise<string> {
  const dim = (text: string) => terminal.dim(text);
  return input(
    {
      message: safeInline(config.message),
      ...(config.default !== undefined ? { default: config.default } : {}),
      validate: safeCheck(config.validate),
      // What is drawn: the typed text, or the default once it is taken.
      transformer: (value) => safeInline(value),
      theme: { style: { defaultAnswer: (text: string) => dim(`(${safeInline(text)})`) } },
    },
    promptContext(terminal, signal),
  );
}
