import { describe, expect, it } from "vitest";
import type { Machine } from "../proc/machine.js";
import type { TargetRun } from "../run/target-run.js";
import { resultsMarkdown, type Settings } from "./markdown.js";
import { COLUMNS, cells, formatTable, toRows } from "./table.js";

function run(name: string, redisCommands?: TargetRun["redisCommands"]): TargetRun {
  return {
    ...(redisCommands ? { redisCommands } : {}),
    name,
    label: `${name} label`,
    flow: "greet",
    peakRssMiB: 100,
    serverCpuSeconds: 5,
    load: {
      flows: 2000,
      rounds: 4000,
      seconds: 10,
      flowsPerSecond: 200,
      roundsPerSecond: 400,
      latency: { count: 4000, mean: 2, p50: 2, p90: 3, p99: 4, max: 9 },
      errors: 0,
      errorSamples: [],
      driverCpuSeconds: 5,
    },
  };
}

const REDIS = COLUMNS.indexOf("Redis cmds/flow");
const settings: Settings = {
  concurrency: 16,
  warmupMs: 3000,
  durationMs: 10_000,
  repeat: 1,
  pinned: false,
  quick: false,
  profiled: false,
};
const machine: Machine = {
  cpuModel: "test CPU",
  cores: 2,
  memoryGiB: 8,
  node: "v24",
  date: "2026-12-07",
  loadAverage: 0,
};

describe("the Redis commands column", () => {
  // 2000 flows: 14 commands each.
  const runs = [
    run("roundtrip"),
    run("roundtrip-once-redis", { set: 14_000, evalsha: 6000, get: 6000, del: 2000 }),
  ];

  it("gives the commands per flow for the row that counted them, and – for the others", () => {
    const [base, once] = cells(toRows(runs));
    expect(REDIS).toBeGreaterThan(0);
    expect(base?.[REDIS]).toBe("–");
    expect(once?.[REDIS]).toBe("14.0");
    expect(formatTable(toRows(runs))).toContain("Redis cmds/flow");
  });

  it("is a column of RESULTS.md", () => {
    const markdown = resultsMarkdown(machine, settings, toRows(runs), []);
    expect(markdown).toContain("| Redis cmds/flow |");
    expect(markdown).toContain("Redis cmds/flow is, for a target that owns a redis-server");
    expect(markdown).toMatch(/\| roundtrip-once-redis \| roundtrip-once-redis label \|.*\| 14\.0 \|/);
  });
});
