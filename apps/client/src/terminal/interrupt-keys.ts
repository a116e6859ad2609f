import type { Terminal } from "../terminal.js";

const CTRL_C = 0x03;

/**
 * Calls `interrupted` once on Ctrl-C, until the returned function is called. On a terminal the keys are
 * read in raw mode, where Ctrl-C is a byte, so no SIGINT is raised for the prompt library's exit
 * handler to act on; without one, SIGINT (kill -INT) is listened for instead.
 */
export function onInterrupt(terminal: Terminal, interrupted: () => void): () => void {
  const { input } = terminal;
  const onData = (chunk: Buffer | string) => {
    if (Buffer.from(chunk).includes(CTRL_C)) fire();
  };
  const raw = terminal.interactive && input.isTTY;
  const stop = () => {
    process.off("SIGINT", fire);
    if (!raw) return;
    input.off("data", onData);
    input.setRawMode(false);
    input.pause();
  };
  function fire() {
    stop();
    interrupted();
  }
  process.once("SIGINT", fire);
  if (raw) {
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
  }
  return stop;
}
