import { McpError } from "@roundtrip/sdk";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Driver } from "../src/driver.js";
import { Fleet } from "../src/fleet.js";
import { type PrometheusServer, type Sample, startPrometheus } from "../src/prometheus.js";

/**
 * Three instances, each serving /metrics on its own METRICS_PORT, scraped every second by a real
 * Prometheus: what was driven through nginx adds up, in one query over the fleet, to exactly what the
 * client sent, wherever each round landed. Nothing a request carried (its token, its requestState)
 * is ever in a series.
 */
const FLOWS = 6;
const FORGED = 2;
/** Scraped every second; the slack is for a busy machine, nothing waits it out. */
const SCRAPED_WITHIN = { timeout: 60_000, interval: 250 };

let fleet: Fleet;
let prometheus: PrometheusServer;

beforeAll(async () => {
  useDummyAwsEnvironment();
  fleet = await Fleet.start({ size: 3, ttlSeconds: 120, metrics: true }, async (starting) => [
    await starting.mintKey(),
  ]);
  prometheus = await startPrometheus("roundtrip", fleet.metricsTargets);
}, 240_000);

afterAll(async () => {
  await prometheus?.stop();
  await fleet?.close();
  vi.unstubAllEnvs();
}, 180_000);

const byLabel = (samples: Sample[], label: string) =>
  Object.fromEntries(samples.map((sample) => [sample.metric[label] ?? "", sample.value]));

describe("the fleet's metrics, scraped by Prometheus", () => {
  it("Prometheus scrapes every instance's METRICS_PORT", async () => {
    expect(fleet.metricsTargets).toHaveLength(3);
    await vi.waitFor(async () => {
      expect(await prometheus.query('sum(up{job="roundtrip"})')).toEqual([
        expect.objectContaining({ value: 3 }),
      ]);
    }, SCRAPED_WITHIN);
  });

  it("counts every round and every refused requestState over the three instances", {
    timeout: 180_000,
  }, async () => {
    const driver = new Driver(fleet.publicUrl, fleet.token, "metrics");
    await driver.run(FLOWS, 3);
    expect(driver.flows.filter((flow) => !flow.ok)).toEqual([]);
    let forgedState = "";
    for (let index = 0; index < FORGED; index += 1) {
      const flow = driver.manual();
      await flow.step();
      forgedState = `${flow.requestState ?? ""}tampered`;
      await expect(flow.replay(forgedState, {})).rejects.toBeInstanceOf(McpError);
    }
    const calls = driver.flows.reduce((sum, flow) => sum + flow.rounds, 0) + 2 * FORGED;
    // Every round went through nginx round-robin, so each instance answered some of them.
    expect(new Set(driver.rounds.map((round) => round.upstream)).size).toBe(3);

    const methodLabel = "mcp_method_name";
    await vi.waitFor(async () => {
      const perMethod = await prometheus.query(
        `sum by (${methodLabel}) (mcp_server_operation_duration_count{job="roundtrip"})`,
      );
      expect(byLabel(perMethod, methodLabel)["tools/call"]).toBe(calls);
      const refusals = await prometheus.query(
        'sum by (roundtrip_request_state_refusal_reason) (roundtrip_request_state_refusals_total{job="roundtrip"})',
      );
      expect(refusals.reduce((sum, sample) => sum + sample.value, 0)).toBe(FORGED);
    }, SCRAPED_WITHIN);

    // Over the fleet as one: the same counts whichever instance answered.
    const perInstance = await prometheus.query(
      'sum by (instance) (mcp_server_operation_duration_count{job="roundtrip",mcp_method_name="tools/call"})',
    );
    expect(perInstance).toHaveLength(3);
    expect(perInstance.reduce((sum, sample) => sum + sample.value, 0)).toBe(calls);

    // No label of any series carries what a request carried.
    const series = await prometheus.query('{job="roundtrip"}');
    const labels = JSON.stringify(series.map((sample) => sample.metric));
    expect(labels).not.toContain(fleet.token);
    expect(labels).not.toContain(forgedState);
    expect(labels).not.toContain(forgedState.slice(0, 40));
  });
});
