import { cpuPerFlow, isValid, redisPerFlow, type TargetRun } from "../run/target-run.js";
import { PLAIN_CALL, TASKS, TASKS_REDIS } from "../targets/catalog.js";
import { num, ratio } from "./table.js";

export interface TasksRow {
  name: string;
  /** Tasks (or plain calls) completed per second. */
  perSecond: number;
  /** p99 of tasks/get for the task row; of the call itself for the plain row. */
  p99: number;
  /** tasks/get per task; undefined for the plain call. */
  pollsPerTask: number | undefined;
  cpuUs: number | undefined;
  /** For the Redis-backed row: the commands its redis-server ran per task, and of them the script calls. */
  redisPerTask: number | undefined;
  scriptsPerTask: number | undefined;
  /** The same commands per task by name, most first. */
  redisByCommand: [string, number][];
}

function rowOf(run: TargetRun | undefined): TasksRow | undefined {
  if (!run || !isValid(run)) return undefined;
  const { load } = run;
  const cpu = cpuPerFlow(run);
  const redis = redisPerFlow(run);
  return {
    name: run.name,
    perSecond: load.flowsPerSecond,
    p99: load.pollLatency?.p99 ?? load.latency.p99,
    pollsPerTask: load.polls === undefined ? undefined : load.polls / load.flows,
    cpuUs: cpu === undefined ? undefined : cpu * 1e6,
    redisPerTask: redis?.commands,
    scriptsPerTask: redis?.scripts,
    redisByCommand: Object.entries(run.redisCommands ?? {})
      .map(([command, calls]): [string, number] => [command, calls / load.flows])
      .sort(([, a], [, b]) => b - a),
  };
}

/** How many commands by name the section lists: the rest are each a small share. */
const LISTED_COMMANDS = 8;

function byCommandLine(row: TasksRow): string[] {
  if (row.redisByCommand.length === 0) return [];
  const listed = row.redisByCommand
    .slice(0, LISTED_COMMANDS)
    .map(([command, perTask]) => `${command} ${perTask.toFixed(1)}`);
  const rest = row.redisByCommand.length > LISTED_COMMANDS ? ", …" : "";
  return [`\`${row.name}\`, Redis commands per task by name: ${listed.join(", ")}${rest}.`, ""];
}

/** The task row and the plain call beside it; none unless the task row ran. */
export function tasksRows(runs: ReadonlyMap<string, TargetRun>): TasksRow[] {
  const task = rowOf(runs.get(TASKS));
  if (!task) return [];
  const others = [rowOf(runs.get(TASKS_REDIS)), rowOf(runs.get(PLAIN_CALL))];
  return [task, ...others.filter((row): row is TasksRow => row !== undefined)];
}

/** RESULTS.md lines on the tasks row. */
export function tasksSection(runs: ReadonlyMap<string, TargetRun>): string[] {
  const rows = tasksRows(runs);
  if (rows.length === 0) return [];
  const plain = rows.find((row) => row.name === PLAIN_CALL);
  return [
    "## Tasks",
    "",
    `\`${TASKS}\` registers add with \`task: "required"\` and a \`Tasks\` of the default keep time (one hour,`,
    "in this process's MemoryTaskStore) and a 1 ms poll interval; its flow is tools/call declaring the",
    "tasks extension (answered with the task handle), then tasks/get after the interval the task asks",
    `for, until completed, the result checked. \`${PLAIN_CALL}\` is the same add as a plain tools/call on the`,
    "baseline. p99 is of tasks/get for the task row, of the call for the plain row; CPU is the server's",
    "per task (or per call), all its requests included. `roundtrip-tasks-redis` keeps each task in Redis and",
    "runs it on a BullMQ worker; its Redis commands per task are every command its redis-server ran in the",
    "measured window (the store's, BullMQ's, those run inside their scripts) per completed task, and of",
    "them the script calls (EVAL, EVALSHA), each one command sent.",
    "",
    "| target | tasks (calls)/s | × plain | p99 ms | tasks/get per task | CPU µs per task (call) | × plain | Redis commands per task | of them script calls |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${num(row.perSecond, 0)} | ${ratio(row.perSecond, plain?.perSecond)} | ${num(row.p99, 2)} | ` +
        `${num(row.pollsPerTask, 2)} | ${num(row.cpuUs, 0)} | ${ratio(row.cpuUs, plain?.cpuUs)} | ` +
        `${num(row.redisPerTask, 1)} | ${num(row.scriptsPerTask, 1)} |`,
    ),
    "",
    ...rows.flatMap(byCommandLine),
  ];
}
