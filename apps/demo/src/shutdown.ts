// Stopping everything the demo started, exactly once, whether the run ends, fails or is interrupted
// by a signal: a CLI left running or a server left listening would outlive the demo.
import { constants } from "node:os";
import { stopChildren } from "./cli.js";
import { say } from "./narration.js";

export interface Shutdown {
  /** Set by SIGINT, SIGTERM or SIGHUP, whose handler stops everything and ends the process. */
  readonly signalled: boolean;
  /** Adds something to close; closed in reverse order, after every CLI still running is stopped. */
  defer(close: () => Promise<unknown>): void;
  /** Stops everything; asked again, waits for the same stop. */
  stop(): Promise<void>;
}

/** A shutdown for this process, which a signal also runs, then exiting as that signal would. */
export function shutdownOnSignals(): Shutdown {
  const closers: (() => Promise<unknown>)[] = [];
  let stopping: Promise<void> | undefined;
  let signalled = false;
  const shutdown: Shutdown = {
    get signalled() {
      return signalled;
    },
    defer(close) {
      closers.unshift(close);
    },
    stop() {
      stopping ??= (async () => {
        stopChildren();
        for (const close of closers) await close();
      })();
      return stopping;
    },
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      say();
      say(`demo: interrupted (${signal}); stopping the CLI and both servers`);
      void shutdown.stop().finally(() => process.exit(128 + (constants.signals[signal] ?? 1)));
    });
  }
  return shutdown;
}
