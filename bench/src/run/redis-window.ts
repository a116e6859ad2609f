import type { RunningServer } from "../proc/children.js";
import type { RedisCommandCounts } from "../proc/redis-counts.js";

type Outcome = { counts: RedisCommandCounts | undefined } | { error: string };

const outcome = (error: unknown): Outcome => ({
  error: error instanceof Error ? error.message : String(error),
});

/**
 * The commands a target's redis-server ran in the driver's measured window: zeroed when the window
 * opens and read when it closes, each over IPC as the driver reports the moment. Both ends arrive
 * a similar few milliseconds late, so the window keeps its length and commands per flow stay fair.
 */
export class RedisWindow {
  readonly #server: RunningServer;
  #reset: Promise<boolean> | undefined;
  #read: Promise<Outcome> | undefined;

  constructor(server: RunningServer) {
    this.#server = server;
  }

  readonly onPhase = (phase: "measure" | "end"): void => {
    if (phase === "measure") {
      this.#reset = this.#server.resetRedisCommands();
      // Answered by `counts()`; without this a failed reset would go unhandled until then.
      this.#reset.catch(() => {});
    }
    const reset = this.#reset;
    if (phase === "end" && reset) {
      this.#read = reset
        .then(
          async (counting) => ({ counts: counting ? await this.#server.readRedisCommands() : undefined }),
          outcome,
        )
        .catch(outcome);
    }
  };

  /** The window's counts; undefined for a target without Redis, or a window that never closed. */
  async counts(): Promise<RedisCommandCounts | undefined> {
    const read = await this.#read;
    if (read && "error" in read) throw new Error(read.error);
    return read?.counts;
  }
}
