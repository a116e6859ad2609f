/**
 * Commands a target's redis-server ran in the measured window, by name as `INFO commandstats` names
 * them (`set`, `evalsha`, `client|setinfo`), the harness's own reset left out. Redis counts a command
 * a script runs (`redis.call`) as well as the script call itself, so these are the commands Redis
 * executed, not only those a client sent.
 */
export type RedisCommandCounts = Readonly<Record<string, number>>;

const STAT_LINE = /^cmdstat_([^:]+):calls=(\d+)/;

/** The calls per command of an `INFO commandstats` reply; other lines are ignored. */
export function parseCommandStats(info: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of info.split(/\r?\n/)) {
    const match = STAT_LINE.exec(line.trim());
    if (match?.[1] && match[2]) counts[match[1]] = Number(match[2]);
  }
  return counts;
}

/** The commands that call a script: each is one command sent, whatever the script runs inside. */
const SCRIPT_CALLS = new Set(["eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"]);

export function totalCommands(counts: RedisCommandCounts): number {
  return Object.values(counts).reduce((sum, calls) => sum + calls, 0);
}

export function scriptCalls(counts: RedisCommandCounts): number {
  return Object.entries(counts).reduce((sum, [name, calls]) => sum + (SCRIPT_CALLS.has(name) ? calls : 0), 0);
}
