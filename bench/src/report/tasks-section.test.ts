import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { PLAIN_CALL, TASKS, TASKS_REDIS } from "../targets/catalog.js";
import { tasksRows, tasksSection } from "./tasks-section.js";

const latency = (p99: number) => ({ count: 1000, mean: 1, p50: 1, p90: 2, p99, max: 9 });

function run(
  name: string,
  cpuSeconds: number,
  polls?: number,
  redisCommands?: TargetRun["redisCommands"],
): TargetRun {
  return {
    ...(redisCommands ? { redisCommands } : {}),
    name,
    label: name,
    flow: polls === undefined ? "add" : "add-task",
    peakRssMiB: 100,
    serverCpuSeconds: cpuSeconds,
    load: {
      flows: 1000,
      rounds: 1000 + (polls ?? 0),
      seconds: 10,
      flowsPerSecond: 100,
      roundsPerSecond: (1000 + (polls ?? 0)) / 10,
      latency: latency(3),
      ...(polls === undefined ? {} : { polls, pollLatency: latency(7) }),
      errors: 0,
      errorSamples: [],
      driverCpuSeconds: 5,
    },
  };
}

const byName = (...runs: TargetRun[]) => new Map(runs.map((r) => [r.name, r]));

describe("the tasks section", () => {
  it("gives tasks/s, the tasks/get p99 and CPU per task beside the plain call", () => {
    const [task, plain] = tasksRows(byName(run(TASKS, 0.3, 1500), run(PLAIN_CALL, 0.1)));
    expect(task).toMatchObject({ name: TASKS, perSecond: 100, p99: 7, pollsPerTask: 1.5, cpuUs: 300 });
    expect(plain).toMatchObject({
      name: PLAIN_CALL,
      perSecond: 100,
      p99: 3,
      pollsPerTask: undefined,
      cpuUs: 100,
    });
    expect(tasksSection(byName(run(TASKS, 0.3, 1500), run(PLAIN_CALL, 0.1))).join("\n")).toContain(
      "| roundtrip-tasks | 100 | 1.00× | 7.00 | 1.50 | 300 | 3.00× | – | – |",
    );
  });

  it("puts the Redis-backed task row between the in-memory one and the plain call, with its Redis commands per task", () => {
    // 1000 tasks: 60 commands each, 7 of them script calls.
    const commands = { hmget: 20_000, evalsha: 5000, eval: 2000, xadd: 9000, set: 24_000 };
    const runs = byName(run(PLAIN_CALL, 0.1), run(TASKS_REDIS, 0.9, 3000, commands), run(TASKS, 0.3, 1500));
    const rows = tasksRows(runs);
    expect(rows.map((row) => row.name)).toEqual([TASKS, TASKS_REDIS, PLAIN_CALL]);
    expect(rows[1]).toMatchObject({ pollsPerTask: 3, cpuUs: 900, redisPerTask: 60, scriptsPerTask: 7 });
    const section = tasksSection(runs).join("\n");
    expect(section).toContain(
      "| roundtrip-tasks-redis | 100 | 1.00× | 7.00 | 3.00 | 900 | 9.00× | 60.0 | 7.0 |",
    );
    expect(section).toContain(
      "`roundtrip-tasks-redis`, Redis commands per task by name: set 24.0, hmget 20.0, xadd 9.0, evalsha 5.0, eval 2.0.",
    );
  });

  it("is absent without the task row", () => {
    expect(tasksSection(byName(run(PLAIN_CALL, 0.1)))).toEqual([]);
  });
});
