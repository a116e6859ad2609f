import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { FlowRecord, RoundRecord } from "./driver.js";

export interface Figures {
  scenario: string;
  flows: number;
  failedFlows: number;
  rounds: number;
  /** Rounds the client got no 200 for: a transport error, or an HTTP error from the proxy or an instance. */
  failedRounds: number;
  /** Rounds nginx passed on to another instance after the first one could not take them. */
  passedOnByProxy: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Rounds answered by each instance (by port), from nginx's $upstream_addr. */
  perInstance: Record<string, number>;
  durationMs: number;
  /** How long each instance took to drain and be ready again, for scenarios that restart them. */
  restartsMs?: number[];
}

export interface FigureReport {
  writtenAt: string;
  scenarios: Figures[];
  [context: string]: unknown;
}

/** Nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The instance that answered: the last address nginx tried. */
export function answeredBy(round: RoundRecord): string {
  return round.upstream.split(",").at(-1)?.trim() ?? "";
}

export function figuresOf(
  scenario: string,
  flows: readonly FlowRecord[],
  rounds: readonly RoundRecord[],
  durationMs: number,
  restartsMs?: number[],
): Figures {
  const perInstance: Record<string, number> = {};
  for (const round of rounds) {
    const instance = answeredBy(round) || "none";
    perInstance[instance] = (perInstance[instance] ?? 0) + 1;
  }
  const latencies = rounds.map((round) => round.ms);
  const round2 = (value: number) => Math.round(value * 100) / 100;
  return {
    scenario,
    flows: flows.length,
    failedFlows: flows.filter((flow) => !flow.ok).length,
    rounds: rounds.length,
    failedRounds: rounds.filter((round) => round.status !== 200).length,
    passedOnByProxy: rounds.filter((round) => round.upstream.includes(",")).length,
    p50Ms: round2(percentile(latencies, 50)),
    p99Ms: round2(percentile(latencies, 99)),
    maxMs: round2(Math.max(...latencies)),
    perInstance,
    durationMs: Math.round(durationMs),
    ...(restartsMs ? { restartsMs } : {}),
  };
}

/** Collects each scenario's figures, prints them as they come and writes them all as JSON at the end. */
export class FigureBook {
  readonly #entries: Figures[] = [];

  add(figures: Figures): Figures {
    this.#entries.push(figures);
    const instances = Object.entries(figures.perInstance)
      .map(([address, count]) => `${address}=${count}`)
      .join(" ");
    console.log(
      `[fleet] ${figures.scenario}: ${figures.flows} flows (${figures.failedFlows} failed), ` +
        `${figures.rounds} rounds (${figures.failedRounds} failed, ${figures.passedOnByProxy} passed on by nginx), ` +
        `round latency p50 ${figures.p50Ms} ms p99 ${figures.p99Ms} ms max ${figures.maxMs} ms, ` +
        `${figures.durationMs} ms; per instance ${instances}` +
        (figures.restartsMs ? `; restarts (drain to ready) ${figures.restartsMs.join(", ")} ms` : ""),
    );
    return figures;
  }

  async write(path: string, context: Record<string, unknown>): Promise<FigureReport> {
    await mkdir(dirname(path), { recursive: true });
    const report: FigureReport = {
      writtenAt: new Date().toISOString(),
      ...context,
      scenarios: this.#entries,
    };
    await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  }
}
