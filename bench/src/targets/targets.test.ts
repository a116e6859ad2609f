import { afterAll, describe, expect, it } from "vitest";
import { FLOWS, type FlowKind } from "../driver/flows.js";
import { createPostClient } from "../driver/http-client.js";
import { type ServerKind, startServer, TARGETS } from "./catalog.js";
import { BENCH_HOST, type Listening } from "./listen.js";

/**
 * Every server the bench measures runs every flow it is measured with, checked by the driver's own
 * checks: a target that answers wrongly would otherwise only show up as an odd figure in RESULTS.md.
 */
const kinds = [...new Set(TARGETS.map((target) => target.server))];
const open: Listening[] = [];

afterAll(async () => {
  await Promise.all(open.map((server) => server.close()));
});

function flowsFor(kind: ServerKind): FlowKind[] {
  if (kind === "floor") return ["greet", "decline"];
  const protects = TARGETS.some((target) => target.server === kind && target.protectsState);
  return protects ? ["greet", "decline", "add", "list", "tampered"] : ["greet", "decline", "add", "list"];
}

describe("bench targets", () => {
  it.each(kinds)("%s answers every flow of the scenario correctly", async (kind) => {
    const server = await startServer(kind);
    open.push(server);
    const client = createPostClient(BENCH_HOST, server.port, { sockets: 2, timeoutMs: 5000 });
    try {
      for (const flow of flowsFor(kind)) {
        const rounds = await FLOWS[flow](client, 7);
        expect(rounds.every((ms) => ms >= 0)).toBe(true);
      }
    } finally {
      client.close();
    }
  });

  it("refuses to send load anywhere but loopback", () => {
    expect(() => createPostClient("10.0.0.1", 80, { sockets: 1, timeoutMs: 10 })).toThrow(/loopback/);
  });
});
