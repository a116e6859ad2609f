import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime; 100 on every Linux build Node supports. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds a process has used so far, all its threads (JIT, GC) included; undefined once it has
 * exited. Throughput on a shared machine moves with the neighbours' load; CPU per flow moves much less.
 */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: count fields from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS_PER_SECOND : undefined;
}
