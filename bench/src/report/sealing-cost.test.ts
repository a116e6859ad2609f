import { describe, expect, it } from "vitest";
import type { TargetRun } from "../run/target-run.js";
import { evaluateGoals, isSealingGoal } from "./goals.js";
import { greetRun } from "./greet-run.js";
import { sealingSection, serverSealingCost } from "./sealing-cost.js";

/** `flows` flows in the window, the server busy `cpuSeconds` over it. */
const run = (name: string, flows: number, cpuSeconds: number) => greetRun(name, flows / 10, cpuSeconds);

const byName = (...runs: TargetRun[]) => new Map(runs.map((r) => [r.name, r]));
// 100000 flows: 10 CPU s is 100 µs each.
const open = run("roundtrip-server-open", 100_000, 10);
const sealed = run("roundtrip-server-sealed", 50_000, 7.5);
const envelope = run("roundtrip-server-envelope", 80_000, 10);

describe("the servers' sealing cost", () => {
  it("is each boundary target's CPU per flow minus the open server's", () => {
    expect(serverSealingCost(byName(open, sealed, envelope))).toEqual({ sealed: 50, envelope: 25 });
    expect(serverSealingCost(byName(open, sealed))).toEqual({ sealed: 50, envelope: undefined });
  });

  it("is unknown without the open server or without CPU figures", () => {
    expect(serverSealingCost(byName(sealed))).toBeUndefined();
    const { serverCpuSeconds: _dropped, ...blind } = sealed;
    expect(serverSealingCost(byName(open, blind))).toBeUndefined();
  });
});

describe("the sealing section", () => {
  it("sets the servers' extra CPU beside the in-process figures, as multiples of the raw AEAD", () => {
    const lines = sealingSection(byName(open, sealed, envelope), { raw: 12.5, envelope: 15, full: 25 });
    expect(lines).toContain("| raw AES-256-GCM seal + open (node:crypto) | 12.5 | 1.00× |");
    expect(lines).toContain("| RequestStateSecurity, in process | 25.0 | 2.00× |");
    expect(lines).toContain("| server: envelope's extra CPU per flow | 25.0 | 2.00× |");
    expect(lines).toContain("| server: sealing's extra CPU per flow | 50.0 | 4.00× |");
  });

  it("repeats the verdicts on sealing's two goals under its figures", () => {
    const runs = byName(open, sealed, envelope);
    const micro = { raw: 12.5, envelope: 15, full: 25 };
    const verdicts = evaluateGoals(runs, 16, micro).filter(isSealingGoal);
    expect(verdicts).toHaveLength(2);
    const lines = sealingSection(runs, micro, verdicts);
    expect(lines).toContain(
      "- sealing's extra server CPU per flow ≤ 40 µs (low-level Server sealed − open): **missed**, 50.0 µs (envelope without encryption 25.0 µs)",
    );
    expect(lines).toContain(
      "- sealing's extra server CPU per flow ≤ 3× raw AES-256-GCM seal + open (same run): **missed**, 4.00× (50.0 µs over 12.5 µs raw)",
    );
  });

  it("keeps its rows with dashes when one side is missing, and is left out when both are", () => {
    const lines = sealingSection(byName(open, sealed), undefined);
    expect(lines).toContain("| server: sealing's extra CPU per flow | 50.0 | – |");
    expect(sealingSection(byName(open), undefined)).toEqual([]);
  });
});
