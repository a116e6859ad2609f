import { runDriverChild, startServerChild } from "../proc/children.js";
import type { Target } from "../targets/catalog.js";
import { BENCH_HOST } from "../targets/listen.js";

/** What one idle 2025-era session costs the server that keeps it. */
export interface IdleSessionCost {
  sessions: number;
  rssKiBPerSession: number;
  heapKiBPerSession: number;
  /** False when the server could not collect garbage first: the figures then include some. */
  collected: boolean;
}

export interface IdleSessionOptions {
  count: number;
  pin: boolean;
}

const CONCURRENCY = 16;
const TIMEOUT_MS = 10_000;
const DEADLINE_MS = 120_000;
/** Sessions opened before the first reading, so code loaded and caches filled by the first few don't count. */
const WARM_SESSIONS = 50;

/**
 * On a fresh server process (run with --expose-gc): open a few sessions, read its memory after a full
 * collection, open `count` more and leave them idle, read again. The difference over `count` is what
 * each session holds; RSS includes heap the process keeps but no longer uses, heap does not.
 */
export async function measureIdleSessions(
  target: Target,
  options: IdleSessionOptions,
): Promise<IdleSessionCost> {
  const server = await startServerChild(target.server, {
    nodeArgs: ["--expose-gc"],
    ...(options.pin ? { cpu: 0 } : {}),
  });
  const open = async (count: number): Promise<void> => {
    let failure: string | undefined;
    await runDriverChild(
      {
        mode: "sessions",
        host: BENCH_HOST,
        port: server.port,
        count,
        concurrency: CONCURRENCY,
        timeoutMs: TIMEOUT_MS,
      },
      DEADLINE_MS,
      (message) => {
        if (message.type === "failed") failure = message.message;
      },
      options.pin ? { cpu: 1 } : {},
    ).catch((error: unknown) => {
      throw new Error(failure ?? (error instanceof Error ? error.message : String(error)));
    });
  };
  try {
    await open(WARM_SESSIONS);
    const before = await server.memory();
    await open(options.count);
    const after = await server.memory();
    return {
      sessions: options.count,
      rssKiBPerSession: (after.rssBytes - before.rssBytes) / 1024 / options.count,
      heapKiBPerSession: (after.heapUsedBytes - before.heapUsedBytes) / 1024 / options.count,
      collected: before.collected && after.collected,
    };
  } finally {
    await server.stop();
  }
}
