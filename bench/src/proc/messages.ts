import type { LoadResult, WindowStats } from "../driver/load-result.js";
import type { FlowMix } from "../driver/mix.js";
import type { RuntimeStats } from "../targets/runtime-window.js";
import type { RedisCommandCounts } from "./redis-counts.js";

/** What the parent asks the load driver child to do. */
export type DriverJob =
  | {
      mode: "closed";
      host: string;
      port: number;
      mix: FlowMix;
      concurrency: number;
      warmupMs: number;
      durationMs: number;
      timeoutMs: number;
      maxErrors: number;
    }
  | {
      mode: "open";
      host: string;
      port: number;
      mix: FlowMix;
      rate: number;
      /**
       * Closed-loop flows on the same connections before the schedule starts, not reported: a
       * fresh driver process is JIT-cold and has no sockets yet, and its first burst of connects
       * stalled the first window by ~200 ms.
       */
      warmupMs: number;
      durationMs: number;
      windowMs: number;
      maxInFlight: number;
      timeoutMs: number;
    }
  | {
      /** Opens `count` 2025-era sessions and leaves them idle on the server. */
      mode: "sessions";
      host: string;
      port: number;
      count: number;
      concurrency: number;
      timeoutMs: number;
    };

export type DriverMessage =
  | { type: "result"; result: LoadResult }
  /** Sent when the measured window of a closed-loop run opens and when it closes. */
  | { type: "phase"; phase: "measure" | "end" }
  | { type: "window"; window: WindowStats }
  | { type: "done" }
  | { type: "sessions"; opened: number }
  | { type: "failed"; message: string };

/** The server's memory after a full collection (when it runs with --expose-gc). */
export interface ServerMemory {
  rssBytes: number;
  heapUsedBytes: number;
  collected: boolean;
}

/**
 * The answers when the measured window opens and closes. At the close, `runtime` is what stalled the
 * server's event loop in the window; `counting` is false for a target without a redis-server (and
 * `counts` then absent); `error` says why a target that has one could not count its commands.
 */
export type WindowMessage =
  | { type: "window-open"; counting: boolean; error?: string }
  | { type: "window-close"; runtime: RuntimeStats; counts?: RedisCommandCounts; error?: string };

export type ServerMessage =
  | { type: "ready"; port: number }
  | { type: "failed"; message: string }
  | ({ type: "memory" } & ServerMemory)
  | WindowMessage;

/** `window-open` when the measured window opens, `window-close` when it closes. */
export type ServerCommand =
  | { type: "stop" }
  | { type: "memory" }
  | { type: "window-open" }
  | { type: "window-close" };

/** Messages cross the IPC channel as structured clones: check the tag before trusting the shape. */
export function isTagged<T extends { type: string }>(value: unknown): value is T {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}

export function isDriverJob(value: unknown): value is DriverJob {
  if (typeof value !== "object" || value === null) return false;
  const mode = (value as { mode?: unknown }).mode;
  return mode === "closed" || mode === "open" || mode === "sessions";
}
