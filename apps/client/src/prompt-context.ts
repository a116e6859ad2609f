import type { Terminal } from "./terminal.js";

/** Prompts draw on stderr, so that stdout keeps only the result. */
export function promptContext(terminal: Terminal, signal?: AbortSignal) {
  return {
    input: terminal.input,
    output: terminal.output,
    clearPromptOnDone: false,
    ...(signal ? { signal } : {}),
  };
}
