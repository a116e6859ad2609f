import { safeOwnLine } from "./safe-text.js";

/** What the CLI waits on, shown while it waits and gone as soon as anything else is written. */
export interface StatusLine {
  /** Shows `text` until the next show or clear; `afterMs` holds it back, so quick waits show nothing. */
  show(text: string, afterMs?: number): void;
  clear(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 120;
const ESC = String.fromCharCode(0x1b);
const ERASE_LINE = `\r${ESC}[2K`;

export const silentStatus: StatusLine = { show: () => {}, clear: () => {} };

/**
 * Without a terminal a status is a plain line, written once per change of text: a log keeps each wait
 * once, with no spinner frames or carriage returns in it.
 */
export function plainStatus(write: (text: string) => void): StatusLine {
  let last: string | undefined;
  let pending: NodeJS.Timeout | undefined;
  return {
    show(text, afterMs = 0) {
      clearTimeout(pending);
      if (text === last) return;
      const print = () => {
        last = text;
        write(`${safeOwnLine(text)}\n`);
      };
      if (afterMs > 0) pending = setTimeout(print, afterMs).unref();
      else print();
    },
    // The last text is kept: a wait that shows again after a pause is the same wait, written once.
    clear() {
      clearTimeout(pending);
    },
  };
}

/** On a terminal: one line with a spinner, redrawn in place and erased when the wait ends. */
export function spinnerStatus(write: (text: string) => void): StatusLine {
  let timer: NodeJS.Timeout | undefined;
  let pending: NodeJS.Timeout | undefined;
  let drawn = false;
  const stop = () => {
    clearTimeout(pending);
    clearInterval(timer);
    timer = undefined;
    if (drawn) write(ERASE_LINE);
    drawn = false;
  };
  return {
    show(text, afterMs = 0) {
      stop();
      const line = safeOwnLine(text);
      let frame = 0;
      const draw = () => {
        write(`${ERASE_LINE}${FRAMES[frame++ % FRAMES.length]} ${line}`);
        drawn = true;
      };
      const start = () => {
        draw();
        timer = setInterval(draw, FRAME_MS).unref();
      };
      if (afterMs > 0) pending = setTimeout(start, afterMs).unref();
      else start();
    },
    clear: stop,
  };
}
