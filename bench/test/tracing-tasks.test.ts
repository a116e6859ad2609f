import { afterAll, describe, expect, it } from "vitest";
import { runClosedLoop } from "../src/driver/closed-loop.js";
import { FLOWS } from "../src/driver/flows.js";
import { createPostClient } from "../src/driver/http-client.js";
import { startServer } from "../src/targets/catalog.js";
import { discardingTelemetry } from "../src/targets/discarding-telemetry.js";
import { BENCH_HOST, type Listening } from "../src/targets/listen.js";

/**
 * The tracing and tasks rows measure what they say: the traced server really hands spans and metrics
 * to the SDK's exporters, and the task flow reports its tasks/get apart from its other rounds.
 */
const open: Listening[] = [];

afterAll(async () => {
  await Promise.all(open.map((server) => server.close()));
});

/** Three greet flows against a server of `kind` in this process; what its registered SDK exported meanwhile. */
async function greetExporting(kind: "roundtrip-mcp-traced" | "floor-traced") {
  const server = await startServer(kind);
  open.push(server);
  const telemetry = discardingTelemetry();
  await telemetry.flush();
  const before = { ...telemetry.exported };
  const client = createPostClient(BENCH_HOST, server.port, { sockets: 2, timeoutMs: 10_000 });
  try {
    for (const seq of [1, 2, 3]) await FLOWS.greet(client, seq);
  } finally {
    client.close();
  }
  await telemetry.flush();
  return {
    spans: telemetry.exported.spans - before.spans,
    metricExports: telemetry.exported.metricExports - before.metricExports,
  };
}

describe("the tracing row", () => {
  it("records spans and metrics through the registered SDK while serving greet", async () => {
    const exported = await greetExporting("roundtrip-mcp-traced");
    // One server span per request at least: three flows of two rounds each.
    expect(exported.spans).toBeGreaterThanOrEqual(6);
    expect(exported.metricExports).toBeGreaterThan(0);
  });
});

describe("the traced floor", () => {
  it("records one span per request through the same SDK, with no MCP in it", async () => {
    expect((await greetExporting("floor-traced")).spans).toBe(6);
  });
});

describe("the tasks row", () => {
  it("follows each task to completion and reports the tasks/get latency apart", async () => {
    const server = await startServer("roundtrip-mcp-tasks");
    open.push(server);
    const client = createPostClient(BENCH_HOST, server.port, { sockets: 4, timeoutMs: 10_000 });
    try {
      const result = await runClosedLoop({
        client,
        flow: FLOWS["add-task"],
        concurrency: 2,
        warmupMs: 0,
        // Long enough for a flow of a few milliseconds to end inside the window on a busy machine.
        durationMs: 3000,
        maxErrors: 1,
      });
      expect(result.errorSamples).toEqual([]);
      expect(result.flows).toBeGreaterThan(0);
      expect(result.polls).toBeGreaterThanOrEqual(result.flows);
      expect(result.rounds).toBe(result.flows + (result.polls ?? 0));
      expect(result.pollLatency?.count).toBe(result.polls);
    } finally {
      client.close();
    }
  });

  it("leaves the poll latency out of a flow that does not poll", async () => {
    const server = await startServer("roundtrip-mcp");
    open.push(server);
    const client = createPostClient(BENCH_HOST, server.port, { sockets: 2, timeoutMs: 10_000 });
    try {
      const result = await runClosedLoop({
        client,
        flow: FLOWS.add,
        concurrency: 1,
        warmupMs: 0,
        durationMs: 1000,
        maxErrors: 1,
      });
      expect(result.flows).toBeGreaterThan(0);
      expect(result.polls).toBeUndefined();
      expect(result.pollLatency).toBeUndefined();
    } finally {
      client.close();
    }
  });
});
