import { num, ratio, type TableRow } from "./table.js";

/** The modern row the 2025-era rows are read against: the same McpServer, the same tool. */
const MODERN = "roundtrip";
const BRIDGE = "roundtrip-legacy";

/**
 * RESULTS.md's section on 2025-11-25 sessions: each legacy row against the modern path on the same
 * server, and against Roundtrip's own bridge, with what an idle session costs. Empty when the run
 * measured no legacy target.
 */
export function legacySection(rows: readonly TableRow[]): string[] {
  const legacy = rows.filter((row) => row.flow === "legacy-greet");
  if (legacy.length === 0) return [];
  const modern = rows.find((row) => row.name === MODERN);
  const bridge = rows.find((row) => row.name === BRIDGE);
  const header = [
    "target",
    "flows/s",
    `× ${MODERN}`,
    `× ${BRIDGE}`,
    "p99 ms",
    `× ${BRIDGE}`,
    "peak RSS MiB",
    "CPU µs/flow",
    `× ${MODERN}`,
    `× ${BRIDGE}`,
    "KiB RSS/idle session",
    `× ${BRIDGE}`,
    "KiB heap/idle session",
    `× ${BRIDGE}`,
  ];
  return [
    "## 2025-11-25 sessions",
    "",
    "`legacy-greet` is the greet tool on a session opened once per worker with `initialize` (as the",
    "official v1 client does): the call's POST opens an SSE stream, the server sends `elicitation/create`",
    "on it, the driver POSTs the answer and reads the result from the same stream. Its two rounds are",
    "the call until the question arrives and the answer until the result does. Idle sessions are",
    "opened on a fresh server run with `--expose-gc` and left idle; memory is read after a full",
    "collection before and after, and the difference divided by their number. `× roundtrip` compares",
    "with the modern path of the same server and tool; on a busy machine, read CPU µs/flow.",
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...legacy
      .map((row) =>
        [
          row.name,
          num(row.flowsPerSecond, 0),
          ratio(row.flowsPerSecond, modern?.flowsPerSecond),
          ratio(row.flowsPerSecond, bridge?.flowsPerSecond),
          num(row.p99, 2),
          ratio(row.p99, bridge?.p99),
          num(row.peakRssMiB, 1),
          num(row.cpuPerFlowUs, 0),
          ratio(row.cpuPerFlowUs, modern?.cpuPerFlowUs),
          ratio(row.cpuPerFlowUs, bridge?.cpuPerFlowUs),
          num(row.idleRssKiB, 1),
          ratio(row.idleRssKiB, bridge?.idleRssKiB),
          num(row.idleHeapKiB, 1),
          ratio(row.idleHeapKiB, bridge?.idleHeapKiB),
        ].join(" | "),
      )
      .map((line) => `| ${line} |`),
    "",
  ];
}
