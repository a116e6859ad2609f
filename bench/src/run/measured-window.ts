import type { ClosedWindow, RunningServer } from "../proc/children.js";

type Outcome = { closed: ClosedWindow } | { error: string };

const outcome = (error: unknown): Outcome => ({
  error: error instanceof Error ? error.message : String(error),
});

/**
 * The driver's measured window as the server sees it: opened and closed over IPC as the driver
 * reports the moment, so the server's runtime watch and its redis-server's command counts cover the
 * window and nothing of the warm-up. Both ends arrive a few milliseconds late; the late opening
 * misses a few milliseconds of full load while the late closing adds only the tails of the flows
 * still in flight, so counts per flow may read low by that share (under 1% of a 10 s window).
 */
export class MeasuredWindow {
  readonly #server: RunningServer;
  #opened: Promise<boolean> | undefined;
  #closed: Promise<Outcome> | undefined;

  constructor(server: RunningServer) {
    this.#server = server;
  }

  readonly onPhase = (phase: "measure" | "end"): void => {
    if (phase === "measure") {
      this.#opened = this.#server.openWindow();
      // Answered by `closed()`; without this a failed opening would go unhandled until then.
      this.#opened.catch(() => {});
    }
    const opened = this.#opened;
    if (phase === "end" && opened) {
      this.#closed = opened
        .then(async () => ({ closed: await this.#server.closeWindow() }), outcome)
        .catch(outcome);
    }
  };

  /** What the server reported for the window; undefined for a window that never closed. */
  async closed(): Promise<ClosedWindow | undefined> {
    const closed = await this.#closed;
    if (closed && "error" in closed) throw new Error(closed.error);
    return closed?.closed;
  }
}
