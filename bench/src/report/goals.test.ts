import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { evaluateGoals, type GoalVerdict } from "./goals.js";
import { greetRun } from "./greet-run.js";
import type { InProcessSealing } from "./sealing-cost.js";

/** A measured run: `flowsPerSecond` over 10 s, the server busy `cpuSeconds` in that window. */
const run = greetRun;

const byName = (...runs: TargetRun[]) => new Map(runs.map((r) => [r.name, r]));
const verdict = (
  prefix: string,
  runs: Map<string, TargetRun>,
  micro?: InProcessSealing,
): GoalVerdict | undefined => evaluateGoals(runs, 16, micro).find((goal) => goal.goal.startsWith(prefix));

/** 10 CPU s over 10 s: 40000 flows cost 250 µs each, 50000 flows 200 µs, 62500 flows 160 µs. */
const sealed = (cpuSeconds = 10) => run("roundtrip-server-sealed", 4000, cpuSeconds);
const open = () => run("roundtrip-server-open", 6250, 10);
const micro: InProcessSealing = { raw: 15, envelope: 20, full: 30 };

describe("the sealing goals", () => {
  it("take the sealed server's extra CPU per flow over the unsealed one, and miss above 40 µs", () => {
    const missed = verdict("sealing's extra server CPU per flow ≤ 40 µs", byName(sealed(), open()));
    expect(missed).toMatchObject({ status: "missed", measured: "90.0 µs" });
    // 7.6 CPU s over 40000 flows: 190 µs, 30 over the open server's 160.
    const met = verdict("sealing's extra server CPU per flow ≤ 40 µs", byName(sealed(7.6), open()));
    expect(met).toMatchObject({ status: "met", measured: "30.0 µs" });
  });

  it("show the envelope's own extra CPU when the pass-through target ran", () => {
    const runs = byName(sealed(), run("roundtrip-server-envelope", 5000, 10), open());
    expect(verdict("sealing's extra server CPU per flow ≤ 40", runs)?.measured).toBe(
      "90.0 µs (envelope without encryption 40.0 µs)",
    );
  });

  it("judge the extra CPU against the raw AEAD measured in the same run", () => {
    const missed = verdict("sealing's extra server CPU per flow ≤ 3×", byName(sealed(), open()), micro);
    expect(missed).toMatchObject({ status: "missed", measured: "6.00× (90.0 µs over 15.0 µs raw)" });
    const met = verdict("sealing's extra server CPU per flow ≤ 3×", byName(sealed(7.6), open()), micro);
    expect(met).toMatchObject({ status: "met", measured: "2.00× (30.0 µs over 15.0 µs raw)" });
  });

  it("are not judged when a side is missing or the raw AEAD was not measured", () => {
    expect(verdict("sealing's extra server CPU per flow ≤ 40", byName(open()))?.status).toBe("n/a");
    const noMicro = verdict("sealing's extra server CPU per flow ≤ 3×", byName(sealed(), open()));
    expect(noMicro).toMatchObject({ status: "n/a", measured: "raw AEAD not measured" });
  });

  it("are not judged on a failed run", () => {
    const failed = run("roundtrip-server-sealed", 4000, 10);
    if (failed.load) failed.load.errors = 3;
    expect(verdict("sealing's extra server CPU per flow ≤ 40", byName(failed, open()), micro)?.status).toBe(
      "n/a",
    );
  });
});

describe("the held goals", () => {
  it("want 6× the official SDK's flows/s on the same tool", () => {
    const six = byName(run("roundtrip", 6000, 10), run("official-hmac", 1000, 10));
    expect(verdict("sealed Roundtrip ≥ 6×", six)).toMatchObject({
      status: "met",
      measured: "6.00×",
      byCpu: "6.00×",
    });
    const five = byName(run("roundtrip", 5900, 10), run("official-hmac", 1000, 10));
    expect(verdict("sealed Roundtrip ≥ 6×", five)?.status).toBe("missed");
  });

  it("want rounds/s at 45% of the floor's", () => {
    const at = byName(run("roundtrip", 4500, 10), run("floor", 10000, 10));
    expect(verdict("sealed Roundtrip rounds/s ≥ 45%", at)).toMatchObject({
      status: "met",
      measured: "45.0%",
    });
    const under = byName(run("roundtrip", 4400, 10), run("floor", 10000, 10));
    expect(verdict("sealed Roundtrip rounds/s ≥ 45%", under)?.status).toBe("missed");
  });

  it("accept a p99 of exactly 3 ms at 16 flows, and do not judge another concurrency", () => {
    const ours = run("roundtrip", 4000, 10);
    if (ours.load) ours.load.latency.p99 = 3;
    expect(verdict("sealed Roundtrip p99", byName(ours))?.status).toBe("met");
    const at8 = evaluateGoals(byName(ours), 8).find((goal) => goal.goal.includes("p99"));
    expect(at8?.status).toBe("n/a");
  });

  it("hold the baseline's peak RSS to 100 MiB, the floor's peak of the same run beside it", () => {
    const floor = run("floor", 9000, 10, { peakRssMiB: 92.5 });
    const within = verdict(
      "baseline peak RSS",
      byName(run("roundtrip", 4000, 10, { peakRssMiB: 100 }), floor),
    );
    expect(within).toMatchObject({ status: "met", measured: "100.0 MiB (the floor: 92.5 MiB)" });
    const above = verdict("baseline peak RSS", byName(run("roundtrip", 4000, 10, { peakRssMiB: 100.1 })));
    expect(above).toMatchObject({ status: "missed", measured: "100.1 MiB" });
  });

  it("want the sealed McpServer's CPU per flow within 1.15× the sealed low-level Server's", () => {
    // 40000 flows for 10 CPU s (250 µs) against 46000 for 10 (217 µs): 1.15×.
    const within = byName(run("roundtrip", 4000, 10), run("roundtrip-server-sealed", 4600, 10));
    expect(verdict("sealed McpServer", within)).toMatchObject({ status: "met", measured: "1.15×" });
    const over = byName(run("roundtrip", 4000, 10), run("roundtrip-server-sealed", 4700, 10));
    expect(verdict("sealed McpServer", over)?.status).toBe("missed");
    expect(verdict("sealed McpServer", byName(run("roundtrip", 4000, 10)))?.status).toBe("n/a");
  });
});

describe("the mcpFastify goal", () => {
  it("wants 95% of createNodeHandler's flows/s, with the same from CPU per flow", () => {
    const runs = byName(run("roundtrip", 4000, 10), run("roundtrip-fastify", 3800, 10));
    expect(verdict("mcpFastify", runs)).toMatchObject({ status: "met", measured: "95.0%", byCpu: "95.0%" });
    const slow = byName(run("roundtrip", 4000, 10), run("roundtrip-fastify", 3700, 10));
    expect(verdict("mcpFastify", slow)?.status).toBe("missed");
    expect(verdict("mcpFastify", byName(run("roundtrip", 4000, 10)))?.status).toBe("n/a");
  });
});

describe("the once ledger in Redis", () => {
  // 40000 flows in 10 s: 14 commands each, three of them script calls.
  const redisCommands = { set: 7 * 40_000, evalsha: 3 * 40_000, get: 3 * 40_000, del: 40_000 };

  it("is judged against the same tool without a ledger, the in-process ledger and the commands beside it", () => {
    // CPU per flow: no ledger 200 µs, in process 225 µs, in Redis 250 µs.
    const runs = byName(
      run("roundtrip", 5000, 10),
      run("roundtrip-once", 4444.4, 10),
      run("roundtrip-once-redis", 4000, 10, { redisCommands }),
    );
    expect(verdict("once-tool with its ledger in Redis", runs)).toEqual({
      goal: expect.stringContaining("≤ 1.25× the same tool without a ledger"),
      status: "met",
      measured: "1.25×; in-process ledger 1.13×; 14.0 Redis commands per flow (3.0 of them script calls)",
      byCpu: "–",
    });
    const slow = byName(run("roundtrip", 5000, 10), run("roundtrip-once-redis", 3900, 10, { redisCommands }));
    expect(verdict("once-tool with its ledger in Redis", slow)).toMatchObject({
      status: "missed",
      // The same command counts over 39000 flows.
      measured: "1.28×; 14.4 Redis commands per flow (3.1 of them script calls)",
    });
  });

  it("is not judged without the tool's plain row", () => {
    const alone = byName(run("roundtrip-once-redis", 4000, 10, { redisCommands }));
    expect(verdict("once-tool with its ledger in Redis", alone)?.status).toBe("n/a");
  });
});
