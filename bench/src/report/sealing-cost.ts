import { cpuPerFlow, isValid, type TargetRun } from "../run/target-run.js";
import type { GoalVerdict } from "./goals.js";

/** µs of CPU per flow (one seal + one open) measured in the bench's own process, in the same run. */
export interface InProcessSealing {
  /** node:crypto AES-256-GCM seal + open of the claims-sized payload: the floor. */
  raw: number;
  /** RequestStateSecurity over the pass-through codec: everything but the cipher. */
  envelope: number;
  /** RequestStateSecurity with the built-in AES-256-GCM codec. */
  full: number;
}

/** What the boundary adds to the low-level Server's CPU per flow, in µs, from the recorded runs. */
export interface ServerSealingCost {
  /** sealed − open. */
  sealed: number;
  /** envelope − open, when the pass-through target ran. */
  envelope: number | undefined;
}

export const SEALED_TARGET = "roundtrip-server-sealed";
export const ENVELOPE_TARGET = "roundtrip-server-envelope";
export const OPEN_TARGET = "roundtrip-server-open";

function microsPerFlow(runs: ReadonlyMap<string, TargetRun>, name: string): number | undefined {
  const run = runs.get(name);
  if (!run || !isValid(run)) return undefined;
  const seconds = cpuPerFlow(run);
  return seconds === undefined ? undefined : seconds * 1e6;
}

/** Undefined unless the sealed and the open server both ran cleanly with CPU figures. */
export function serverSealingCost(runs: ReadonlyMap<string, TargetRun>): ServerSealingCost | undefined {
  const open = microsPerFlow(runs, OPEN_TARGET);
  const sealed = microsPerFlow(runs, SEALED_TARGET);
  if (open === undefined || sealed === undefined) return undefined;
  const envelope = microsPerFlow(runs, ENVELOPE_TARGET);
  return { sealed: sealed - open, envelope: envelope === undefined ? undefined : envelope - open };
}

const us = (value: number | undefined): string => (value === undefined ? "–" : value.toFixed(1));
const times = (value: number | undefined, base: number | undefined): string =>
  value === undefined || base === undefined || !(base > 0) ? "–" : `${(value / base).toFixed(2)}×`;

/**
 * The RESULTS.md section that sets the servers' extra CPU per flow beside the in-process figures,
 * with the verdicts on sealing's two goals (judged in goals.ts) under them.
 */
export function sealingSection(
  runs: ReadonlyMap<string, TargetRun>,
  micro: InProcessSealing | undefined,
  verdicts: readonly GoalVerdict[] = [],
): string[] {
  const server = serverSealingCost(runs);
  if (!server && !micro) return [];
  const raw = micro?.raw;
  return [
    "## Sealing cost per flow",
    "",
    "In process (this bench's own process, before the servers, interleaved CPU-time slices, median",
    "slice; one seal + one open per flow, the subjects of `pnpm bench:sealing`) beside what the",
    `request-state boundary adds to the low-level Server's CPU per flow (\`${SEALED_TARGET}\` or`,
    `\`${ENVELOPE_TARGET}\` minus \`${OPEN_TARGET}\`, from the table above).`,
    "",
    "| what | µs/flow | × raw AEAD |",
    "| --- | ---: | ---: |",
    `| raw AES-256-GCM seal + open (node:crypto) | ${us(raw)} | ${times(raw, raw)} |`,
    `| RequestStateSecurity, no cipher (envelope), in process | ${us(micro?.envelope)} | ${times(micro?.envelope, raw)} |`,
    `| RequestStateSecurity, in process | ${us(micro?.full)} | ${times(micro?.full, raw)} |`,
    `| server: envelope's extra CPU per flow | ${us(server?.envelope)} | ${times(server?.envelope, raw)} |`,
    `| server: sealing's extra CPU per flow | ${us(server?.sealed)} | ${times(server?.sealed, raw)} |`,
    "",
    ...verdicts.map((v) => `- ${v.goal}: **${v.status}**, ${v.measured}`),
    ...(verdicts.length > 0 ? [""] : []),
  ];
}
