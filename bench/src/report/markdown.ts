import { type Machine, machineLine } from "../proc/machine.js";
import type { GoalVerdict } from "./goals.js";
import { legacySection } from "./legacy-section.js";
import { COLUMNS, cells, type TableRow } from "./table.js";

export interface Settings {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  repeat: number;
  pinned: boolean;
  quick: boolean;
  profiled: boolean;
}

const MARK: Readonly<Record<GoalVerdict["status"], string>> = {
  met: "met",
  missed: "**missed**",
  "n/a": "n/a",
};

function settingsLine(s: Settings): string {
  const pin = s.pinned ? "server pinned to CPU 0, load driver to CPU 1" : "no CPU pinning";
  const extra = [
    s.quick ? "quick mode" : "",
    s.profiled ? "servers ran with --cpu-prof (figures distorted)" : "",
  ]
    .filter(Boolean)
    .join("; ");
  return `${s.concurrency} concurrent flows, ${s.warmupMs / 1000} s warm-up, ${s.durationMs / 1000} s measured, median of ${s.repeat} run(s), ${pin}${extra ? `; ${extra}` : ""}`;
}

/**
 * RESULTS.md: the machine, the settings, the table with ratios, `sections` (lines of markdown, each
 * section ending in a blank line), and which targets were met.
 */
export function resultsMarkdown(
  machine: Machine,
  settings: Settings,
  rows: readonly TableRow[],
  goals: readonly GoalVerdict[],
  sections: readonly string[] = [],
): string {
  const table = cells(rows);
  const header = ["target", "what", ...COLUMNS.slice(1)];
  const lines = [
    "# Roundtrip HTTP benchmark",
    "",
    "Written by `pnpm bench` (see `bench/README.md`); the raw numbers are in `bench/results/latest.json`.",
    "",
    `**Machine:** ${machineLine(machine)}`,
    "",
    `**Settings:** ${settingsLine(settings)}`,
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i < 3 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((row, i) => {
      const [name = "", ...rest] = table[i] ?? [];
      return `| ${name} | ${row.label} | ${rest.join(" | ")} |`;
    }),
    "",
    "A flow is a whole tools/call: for `greet`, round 1 (input_required), the answer, and round 2 (the",
    "greeting, checked word for word); for `add`, one round. Latency is per round (one HTTP request,",
    "measured by the driver from send to parsed answer). Peak RSS is the server process's VmHWM.",
    "CPU µs/flow is the server process's CPU time (all threads) over the measured window divided by",
    "the flows completed in it, the figure a busy machine moves least; server CPU and driver CPU are",
    "each process's CPU time as a share of one core (a driver near 100% means the driver, not the",
    "server, set the pace). Redis cmds/flow is, for a target that owns a redis-server, the commands that",
    "server ran in the measured window (`INFO commandstats`, zeroed when the window opens, the harness's",
    "own left out) per completed flow; a command a script runs counts as well as the script call, so a",
    "once flow's SET and three EVALSHA show as 14. Ratios (×) are to `roundtrip`, our McpServer with its",
    "default sealing.",
    "",
    ...rows
      .filter((row) => row.note)
      .flatMap((row, i, noted) => [
        `- \`${row.name}\`: ${row.note}`,
        ...(i === noted.length - 1 ? [""] : []),
      ]),
    ...legacySection(rows),
    ...sections,
    "## Targets",
    "",
    "| target | status | measured | by server CPU per flow |",
    "| --- | --- | --- | --- |",
    ...goals.map((g) => `| ${g.goal} | ${MARK[g.status]} | ${g.measured} | ${g.byCpu} |`),
    "",
    "The status is judged as each target is worded, on throughput, latency, memory or CPU. The last column is the",
    "same ratio from server CPU time per flow: what it would be if each server had a core to itself.",
    "When the machine is busy (server CPU well under 100% above), that column is the steadier one.",
    "",
    `With ${settings.concurrency} closed-loop flows, each with one request in flight, the mean round latency is`,
    `${settings.concurrency} / (rounds/s) by Little's law: a 5 ms mean is ${Math.round(settings.concurrency / 0.005)} rounds/s, so a p99 under`,
    `5 ms needs well over ${Math.round(settings.concurrency / 0.005)} rounds/s from the server and the driver together.`,
    "",
  ];
  return lines.join("\n");
}
