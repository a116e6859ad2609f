import { raceAbort } from "../transport/client-transport.js";
import { isCreateTaskResult } from "./follow-task.js";

/**
 * After its caller gave up, a request that may be answered with a task is waited on this much longer:
 * a task it answers with then gets cancelled instead of running unseen until its ttlMs passes.
 */
export const LATE_TASK_WAIT_MS = 10_000;

/**
 * Sends a request whose answer may be a task, bounded by `signal` for the caller only: when the signal
 * aborts, the caller gets its reason at once while the request goes on for up to `waitMs`, so that a
 * task it still answers with can be named and cancelled. Any other late answer is dropped.
 */
export function sendCancellingLateTask(
  send: (signal: AbortSignal) => Promise<Record<string, unknown>>,
  signal: AbortSignal | undefined,
  cancel: (taskId: string) => Promise<unknown>,
  waitMs: number = LATE_TASK_WAIT_MS,
): Promise<Record<string, unknown>> {
  if (signal === undefined) return send(new AbortController().signal);
  signal.throwIfAborted();
  const request = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    timer = setTimeout(() => request.abort(signal.reason), waitMs);
    timer.unref?.();
    sending.then(
      async (answer) => {
        clearTimeout(timer);
        if (isCreateTaskResult(answer) && typeof answer.taskId === "string")
          await cancel(answer.taskId).catch(() => undefined);
      },
      () => clearTimeout(timer),
    );
  };
  const sending = send(request.signal);
  signal.addEventListener("abort", onAbort, { once: true });
  sending.then(
    () => signal.removeEventListener("abort", onAbort),
    () => signal.removeEventListener("abort", onAbort),
  );
  return raceAbort(sending, signal);
}
