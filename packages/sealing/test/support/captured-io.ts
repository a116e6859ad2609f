import type { KeygenIo } from "../../src/kms/keygen-command.js";

/** Collects what the keygen command writes. */
export function capturedIo(): KeygenIo & { readonly out: () => string; readonly err: () => string } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout: (text) => {
      stdout.push(text);
    },
    stderr: (text) => {
      stderr.push(text);
    },
    out: () => stdout.join(""),
    err: () => stderr.join(""),
  };
}
