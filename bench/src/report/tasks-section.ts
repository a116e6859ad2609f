import { cpuPerFlow, isValid, type TargetRun } from "../run/target-run.js";
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
}

function rowOf(run: TargetRun | undefined): TasksRow | undefined {
  if (!run || !isValid(run)) return undefined;
  const { load } = run;
  const cpu = cpuPerFlow(run);
  return {
    name: run.name,
    perSecond: load.flowsPerSecond,
    p99: load.pollLatency?.p99 ?? load.latency.p99,
    pollsPerTask: load.polls === undefined ? undefined : load.polls / load.flows,
    cpuUs: cpu === undefined ? undefined : cpu * 1e6,
  };
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
    "runs it on a BullMQ worker; its Redis commands per task are not reported yet.",
    "",
    "| target | tasks (calls)/s | × plain | p99 ms | tasks/get per task | CPU µs per task (call) | × plain |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${num(row.perSecond, 0)} | ${ratio(row.perSecond, plain?.perSecond)} | ${num(row.p99, 2)} | ` +
        `${num(row.pollsPerTask, 2)} | ${num(row.cpuUs, 0)} | ${ratio(row.cpuUs, plain?.cpuUs)} |`,
    ),
    "",
  ];
}
