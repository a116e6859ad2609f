import { afterAll, describe, expect, it } from "vitest";
import { FLOWS, type FlowKind } from "../src/driver/flows.js";
import { createPostClient } from "../src/driver/http-client.js";
import { scriptCalls, totalCommands } from "../src/proc/redis-counts.js";
import { type ServerKind, startServer } from "../src/targets/catalog.js";
import { BENCH_HOST, type Listening } from "../src/targets/listen.js";
import type { RedisCommandWindow } from "../src/targets/redis-command-counter.js";

/**
 * The Redis rows count what their redis-server really ran: a real server per target, reset and read
 * as the harness does at the edges of its window, around a known number of flows.
 */
const open: Listening[] = [];

afterAll(async () => {
  await Promise.all(open.map((server) => server.close()));
});

async function started(kind: ServerKind): Promise<{ server: Listening; window: RedisCommandWindow }> {
  const server = await startServer(kind);
  open.push(server);
  const window = server.redisCommands;
  if (!window) throw new Error(`${kind} offers no Redis command counts`);
  return { server, window };
}

/** `count` flows one after the other, after one the window leaves out (its scripts get loaded there). */
async function runFlows(server: Listening, window: RedisCommandWindow, flow: FlowKind, count: number) {
  const client = createPostClient(BENCH_HOST, server.port, { sockets: 1, timeoutMs: 10_000 });
  try {
    await FLOWS[flow](client, 1);
    await window.reset();
    for (let seq = 2; seq <= count + 1; seq++) await FLOWS[flow](client, seq);
    return await window.read();
  } finally {
    client.close();
  }
}

describe("the Redis command counts of a target", () => {
  it("leave out the harness's own reset and read", async () => {
    const { window } = await started("roundtrip-mcp-once-redis");
    await window.reset();
    expect(await window.read()).toEqual({});
    expect(await window.read()).toEqual({});
  });

  it("count a two-round once flow as its SET and three EVALSHA, and the ten commands those scripts run", async () => {
    const { server, window } = await started("roundtrip-mcp-once-redis");
    const flows = 12;
    const counts = await runFlows(server, window, "greet", flows);
    // Sent: the claim's SET, then lease, start and complete, one script each. Run inside them:
    // lease GET, SET, SET; start GET, SET, SET; complete GET, SET, SET, DEL.
    expect(counts).toEqual({ set: 7 * flows, evalsha: 3 * flows, get: 3 * flows, del: flows });
    expect(totalCommands(counts) / flows).toBe(14);
    expect(scriptCalls(counts) / flows).toBe(3);
  });

  it("count a task's store and BullMQ commands, none of the harness's", async () => {
    const { server, window } = await started("roundtrip-mcp-tasks-redis");
    const tasks = 20;
    const counts = await runFlows(server, window, "add-task", tasks);
    // The task's record is read with HMGET at every tasks/get; BullMQ moves the job with scripts.
    expect(counts.hmget ?? 0).toBeGreaterThanOrEqual(tasks);
    expect(scriptCalls(counts)).toBeGreaterThanOrEqual(tasks);
    expect(Object.keys(counts).filter((name) => /^(config|info)\b/.test(name))).toEqual([]);
  });

  it("are absent on a target without Redis", async () => {
    const server = await startServer("roundtrip-mcp-once");
    open.push(server);
    expect(server.redisCommands).toBeUndefined();
  });
});
