import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureTool, freePort } from "@roundtrip/test-services";
import { killOnExit } from "./children.js";

/** Prometheus replays nothing on a fresh data folder, so it is ready in seconds even on a busy machine. */
const READY_WITHIN_MS = 60_000;

/** One series of an instant query's answer: its labels and its value. */
export interface Sample {
  metric: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  readonly origin: string;
  /** An instant query through `/api/v1/query`; throws with Prometheus's own error when it fails. */
  query(promql: string): Promise<Sample[]>;
  stop(): Promise<void>;
}

/** A scrape job per target list; the interval is short so a test sees what it drove within seconds. */
export function prometheusConfig(
  job: string,
  targets: readonly string[],
  scrapeIntervalSeconds: number,
): string {
  return `global:
  scrape_interval: ${scrapeIntervalSeconds}s
  scrape_timeout: ${scrapeIntervalSeconds}s
scrape_configs:
  - job_name: ${JSON.stringify(job)}
    metrics_path: /metrics
    static_configs:
      - targets: [${targets.map((target) => JSON.stringify(target)).join(", ")}]
`;
}

/**
 * Debian's prometheus as a foreground child, with a generated configuration and its data in a
 * temporary folder, listening on a loopback port of its own.
 */
export async function startPrometheus(job: string, targets: readonly string[]): Promise<PrometheusServer> {
  const binary = await ensureTool("prometheus");
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-fleet-prometheus-"));
  const config = join(dir, "prometheus.yml");
  await writeFile(config, prometheusConfig(job, targets, 1));
  const port = await freePort();
  const child = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  killOnExit(child);
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const forced = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(forced);
    await rm(dir, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await untilReady(origin, exited, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, query: (promql) => query(origin, promql), stop };
}

async function untilReady(origin: string, exited: Promise<void>, output: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`prometheus exited before it was ready:\n${output()}`);
    const ready = await fetch(`${origin}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await delay(100);
  }
  throw new Error(`prometheus was not ready at ${origin} within ${READY_WITHIN_MS} ms:\n${output()}`);
}

async function query(origin: string, promql: string): Promise<Sample[]> {
  const response = await fetch(`${origin}/api/v1/query?${new URLSearchParams({ query: promql })}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  if (body.status !== "success" || body.data?.resultType !== "vector") {
    throw new Error(`the query ${promql} failed: ${body.error ?? JSON.stringify(body)}`);
  }
  return body.data.result.map((series) => ({ metric: series.metric, value: Number(series.value[1]) }));
}
