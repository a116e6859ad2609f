import type { RoundtripServer } from "./build-server.js";

export interface ShutdownOptions {
  /** How long in-flight requests may take to finish before the process exits anyway. */
  timeoutMs: number;
  signals?: readonly NodeJS.Signals[];
  exit?: (code: number) => void;
}

/**
 * On SIGTERM or SIGINT: readiness fails, the listener closes, in-flight requests finish, then the
 * process exits 0. Past the timeout, or on a second signal, it exits 1 without waiting further.
 */
export function closeOnSignals(server: RoundtripServer, options: ShutdownOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = server.app.log;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting without waiting for in-flight requests");
      exit(1);
      return;
    }
    stopping = true;
    log.info({ signal, timeoutMs: options.timeoutMs }, "shutting down: draining in-flight requests");
    const timer = setTimeout(() => {
      log.error({ timeoutMs: options.timeoutMs }, "shutdown timed out with requests still in flight");
      exit(1);
    }, options.timeoutMs);
    timer.unref();
    server.close().then(
      () => {
        clearTimeout(timer);
        log.info({}, "stopped");
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        log.error({ err: error }, "shutdown failed");
        exit(1);
      },
    );
  };
  for (const signal of options.signals ?? ["SIGTERM", "SIGINT"]) process.on(signal, stop);
}
