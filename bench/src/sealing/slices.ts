export interface SliceOptions {
  sliceMs: number;
  slices: number;
  warmupMs: number;
}

/** Something timed per flow: synchronous flows run back to back, asynchronous ones awaited one by one. */
export interface Timed {
  readonly name: string;
  readonly flow: () => unknown;
  /** The flow returns a promise, to be awaited before the next one starts. */
  readonly async?: boolean;
}

const BATCH = 32;

function cpuMicros(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/**
 * Runs `subject` for about `ms` milliseconds and returns its µs per flow of CPU time used by this
 * process (user + system). CPU time is what an operation costs; wall time on a shared machine also
 * counts time spent waiting for a core.
 */
async function microsPerFlow(subject: Timed, ms: number): Promise<number> {
  let flows = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (subject.async) for (let i = 0; i < BATCH; i++) await subject.flow();
    else for (let i = 0; i < BATCH; i++) subject.flow();
    flows += BATCH;
  }
  return cpuMicros(cpu) / flows;
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Each subject's median µs per flow over interleaved time slices, the order reversed every other
 * slice: a machine busy with something else then slows every subject alike, and the ratios between
 * them stay meaningful.
 */
export async function measureInSlices<Name extends string>(
  subjects: readonly (Timed & { name: Name })[],
  options: SliceOptions,
): Promise<Record<Name, number>> {
  for (const subject of subjects) await microsPerFlow(subject, options.warmupMs);
  const samples = new Map<Timed, number[]>(subjects.map((subject) => [subject, []]));
  for (let slice = 0; slice < options.slices; slice++) {
    const order = slice % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) samples.get(subject)?.push(await microsPerFlow(subject, options.sliceMs));
  }
  return Object.fromEntries(
    subjects.map((subject) => [subject.name, median(samples.get(subject) ?? [])]),
  ) as Record<Name, number>;
}
