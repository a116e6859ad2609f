/**
 * The load driver process. The parent sends one DriverJob over IPC; the driver answers with its
 * result (closed loop) or a stream of windows (open loop), then exits. It also exits when the parent
 * goes away, so no load outlives the run.
 */
import { type DriverJob, type DriverMessage, isDriverJob } from "../proc/messages.js";
import { runClosedLoop } from "./closed-loop.js";
import { createPostClient } from "./http-client.js";
import { openSession } from "./legacy-greet.js";
import { mixedFlow } from "./mix.js";
import { runOpenLoop } from "./open-loop.js";

const WARMUP_CONCURRENCY = 16;

function send(message: DriverMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

/** Opens the sessions on `concurrency` workers and leaves them idle: nothing more is sent on them. */
async function openSessions(job: Extract<DriverJob, { mode: "sessions" }>): Promise<void> {
  const client = createPostClient(job.host, job.port, { sockets: job.concurrency, timeoutMs: job.timeoutMs });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < job.count) await openSession(client, next++);
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  client.close();
  await send({ type: "sessions", opened: job.count });
}

async function run(job: DriverJob): Promise<void> {
  if (job.mode === "sessions") return openSessions(job);
  const flow = mixedFlow(job.mix);
  if (job.mode === "closed") {
    const client = createPostClient(job.host, job.port, {
      // A 2025-era flow holds its call's stream open while it POSTs the answer: two sockets each.
      sockets: job.concurrency * 2,
      timeoutMs: job.timeoutMs,
    });
    const result = await runClosedLoop({
      client,
      flow,
      ...job,
      onPhase: (phase) => void send({ type: "phase", phase }),
    });
    client.close();
    await send({ type: "result", result });
    return;
  }
  const client = createPostClient(job.host, job.port, {
    sockets: job.maxInFlight * 2,
    timeoutMs: job.timeoutMs,
  });
  if (job.warmupMs > 0) {
    const warm = await runClosedLoop({
      client,
      flow,
      concurrency: WARMUP_CONCURRENCY,
      warmupMs: 0,
      durationMs: job.warmupMs,
      maxErrors: 1,
    });
    // A flow that fails before the schedule starts is a failure of the run, not a warm-up detail.
    if (warm.errors > 0) throw new Error(`a warm-up flow failed: ${warm.errorSamples.join("; ")}`);
  }
  await runOpenLoop({ client, flow, ...job, onWindow: (window) => void send({ type: "window", window }) });
  client.close();
  await send({ type: "done" });
}

process.once("disconnect", () => process.exit(0));
process.once("message", (job: unknown) => {
  if (!isDriverJob(job)) {
    void send({ type: "failed", message: "the driver got a message that is not a job" }).then(() =>
      process.exit(1),
    );
    return;
  }
  run(job).then(
    () => process.exit(0),
    async (error: unknown) => {
      await send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
});
