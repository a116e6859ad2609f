import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitTimes } from "../src/driver/flow.js";
import { FLOWS, type FlowKind } from "../src/driver/flows.js";
import { createPostClient } from "../src/driver/http-client.js";
import { FLEET_KEY_ENV, type ServerKind, startServer, TARGETS } from "../src/targets/catalog.js";
import { BENCH_HOST, type Listening } from "../src/targets/listen.js";

/**
 * Every server the bench measures runs every flow it is measured with, checked by the driver's own
 * checks: a target that answers wrongly would otherwise only show up as an odd figure in RESULTS.md.
 */
const kinds = [...new Set(TARGETS.map((target) => target.server))];
const open: Listening[] = [];

beforeAll(() => {
  // A fleet instance takes its sealing key from the environment, as the bench passes it.
  process.env[FLEET_KEY_ENV] = randomBytes(32).toString("hex");
});

afterAll(async () => {
  await Promise.all(open.map((server) => server.close()));
  delete process.env[FLEET_KEY_ENV];
});

/** The flows the bench measures on this server, and, on servers of the modern flows, the soak's too. */
function flowsFor(kind: ServerKind): FlowKind[] {
  if (kind === "floor" || kind === "floor-traced") return ["greet", "decline"];
  const measured = TARGETS.filter((target) => target.server === kind);
  const legacy: FlowKind[] = measured.some((target) => target.flow === "legacy-greet")
    ? ["legacy-greet"]
    : [];
  if (!measured.some((target) => target.flow !== "legacy-greet")) return legacy;
  const protects = measured.some((target) => target.protectsState);
  // A server that runs add only as a task answers it only to a client that follows the task.
  const add: FlowKind = measured.some((target) => target.flow === "add-task") ? "add-task" : "add";
  const modern: FlowKind[] = protects
    ? ["greet", "decline", add, "list", "tampered"]
    : ["greet", "decline", add, "list"];
  return [...modern, ...legacy];
}

describe("bench targets", () => {
  it.each(kinds)("%s answers every flow of the scenario correctly", async (kind) => {
    const server = await startServer(kind);
    open.push(server);
    const client = createPostClient(BENCH_HOST, server.port, { sockets: 4, timeoutMs: 5000 });
    try {
      for (const flow of flowsFor(kind)) {
        // Twice: a 2025-era flow opens its session the first time and reuses it the second.
        for (const seq of [7, 8]) {
          const { rounds, polls } = splitTimes(await FLOWS[flow](client, seq));
          expect(rounds.length).toBeGreaterThan(0);
          expect(rounds.every((ms) => ms >= 0)).toBe(true);
          // A task is followed with tasks/get at least once: the handle never carries the result.
          if (flow === "add-task") expect(polls.length).toBeGreaterThan(0);
        }
      }
    } finally {
      client.close();
    }
  });
});
