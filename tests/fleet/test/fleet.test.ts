import { fileURLToPath } from "node:url";
import { McpError } from "@roundtrip/sdk";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Driver, type FlowRecord, ROUNDS_PER_FLOW, type RoundRecord } from "../src/driver.js";
import { answeredBy, FigureBook, type Figures, figuresOf } from "../src/figures.js";
import { Fleet, SERVER_NAME } from "../src/fleet.js";
import type { ServerInstance } from "../src/instance.js";

/**
 * Long enough for a paused flow to outlive an instance's kill and cold restart even on a loaded
 * machine (12 s on a busy CI run, over 30 s with two CPU hogs beside it). Nothing waits it out.
 */
const TTL_SECONDS = 120;
const CONCURRENCY = 16;
/**
 * Each user's think time between flows while instances restart: sixteen users keep rounds going
 * throughout at about a third of what this machine serves, so the restarts are measured, not starved.
 */
const ROLLING_GAP_MS = 800;
/** Nine restarts, each a cold start of the server, under load: on a busy 2-core machine, minutes. */
const ROTATION_WITHIN_MS = 600_000;
const LOGS_WITHIN = { timeout: 30_000, interval: 50 };
const LOAD_FLOWS = 240;
const RESULTS = fileURLToPath(new URL("../results/latest.json", import.meta.url));

let fleet: Fleet;
/** The key the fleet starts with; the rotation retires it. */
let firstKey: string;
/** The wrapped keys every instance runs with now, newest first. */
let fleetKeys: string[];
const book = new FigureBook();
const started = Date.now();

beforeAll(async () => {
  useDummyAwsEnvironment();
  fleet = await Fleet.start({ size: 3, ttlSeconds: TTL_SECONDS }, async (starting) => {
    firstKey = await starting.mintKey();
    fleetKeys = [firstKey];
    return fleetKeys;
  });
}, 240_000);

afterAll(async () => {
  try {
    // Written again here so a failed run still leaves its figures behind.
    await book.write(RESULTS, context());
  } finally {
    await fleet?.close();
    vi.unstubAllEnvs();
  }
}, 180_000);

function context(): Record<string, unknown> {
  return {
    instances: 3,
    concurrency: CONCURRENCY,
    requestStateTtlSeconds: TTL_SECONDS,
    totalMs: Date.now() - started,
  };
}

function driver(prefix: string): Driver {
  return new Driver(fleet.publicUrl, fleet.token, prefix);
}

/** Runs `work` and records the figures of the flows and rounds it added to `driven`. */
async function measured(
  scenario: string,
  driven: Driver,
  work: () => Promise<void>,
  restartsMs?: number[],
): Promise<Figures> {
  const flowsBefore = driven.flows.length;
  const roundsBefore = driven.rounds.length;
  const begin = performance.now();
  await work();
  return book.add(
    figuresOf(
      scenario,
      driven.flows.slice(flowsBefore),
      driven.rounds.slice(roundsBefore),
      performance.now() - begin,
      restartsMs,
    ),
  );
}

function failuresOf(flows: readonly FlowRecord[]): string[] {
  return flows.filter((flow) => !flow.ok).map((flow) => `${flow.flow}: ${flow.error}`);
}

/** The instance nginx says answered `round`. */
function instanceOf(round: RoundRecord): ServerInstance {
  const instance = fleet.instanceAt(answeredBy(round));
  if (!instance) throw new Error(`round ${round.requestId} was answered by no instance: "${round.upstream}"`);
  return instance;
}

/**
 * Checks nginx's account of who answered each round against the instances' own logs. An instance logs
 * a request once its response is out, and its output reaches this process a little later: poll.
 */
async function expectLogsAgree(rounds: readonly RoundRecord[]): Promise<void> {
  await vi.waitFor(() => {
    const served = new Map(fleet.instances.map((instance) => [instance, instance.served()]));
    const disagreements = rounds.filter((round) => {
      const holders = fleet.instances.filter((instance) => served.get(instance)?.has(round.requestId));
      return holders.length !== 1 || holders[0] !== instanceOf(round);
    });
    expect(disagreements.map((round) => `${round.requestId} via ${round.upstream}`)).toEqual([]);
  }, LOGS_WITHIN);
}

/** Restarts every instance in turn, each drained and back to ready before the next, timing each. */
async function rollingRestart(env: Record<string, string>, durations: number[]): Promise<void> {
  for (const instance of fleet.instances) {
    const begin = performance.now();
    const exit = await instance.drain();
    const drained = instance.output().split("\n").slice(-40).join("\n");
    expect(exit, `${instance.name} after SIGTERM:\n${drained}`).toEqual({ code: 0, signal: null });
    await instance.start(env);
    durations.push(Math.round(performance.now() - begin));
  }
}

/** The refusal a call ends with, or undefined if it succeeded. */
function refusalOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectFrozenRefusal(refusal: unknown): void {
  expect(refusal).toBeInstanceOf(McpError);
  expect([(refusal as McpError).code, (refusal as McpError).message]).toEqual([
    -32602,
    "Invalid or expired requestState",
  ]);
}

/** Whether `instance`'s running generation logged a refused requestState for `reason`. */
function loggedRefusal(instance: ServerInstance, reason: string): boolean {
  return instance.lines().some((line) => line.generation === instance.generation && line.reason === reason);
}

describe("three server processes behind nginx", () => {
  it("sends consecutive rounds round robin to the three instances, as their logs confirm", async () => {
    const sequential = driver("rr");
    const figures = await measured("round robin, one flow at a time", sequential, () => sequential.run(6, 1));

    expect(failuresOf(sequential.flows)).toEqual([]);
    for (const rounds of sequential.roundsByFlow().values()) {
      const answered = rounds.map(instanceOf);
      for (let index = 1; index < answered.length; index += 1) {
        expect(answered[index]).not.toBe(answered[index - 1]);
      }
    }
    expect(Object.keys(figures.perInstance)).toHaveLength(3);
    await expectLogsAgree(sequential.rounds);
  });

  it(`completes every one of ${LOAD_FLOWS} flows, ${CONCURRENCY} at a time`, async () => {
    const load = driver("load");
    const figures = await measured(`${LOAD_FLOWS} flows, ${CONCURRENCY} concurrent`, load, () =>
      load.run(LOAD_FLOWS, CONCURRENCY),
    );

    expect(failuresOf(load.flows)).toEqual([]);
    const expectedRounds = load.flows.reduce((sum, flow) => sum + ROUNDS_PER_FLOW[flow.kind], 0);
    expect([figures.flows, figures.rounds, figures.failedRounds]).toEqual([LOAD_FLOWS, expectedRounds, 0]);
    // Round robin under load: each instance answers about a third, and most flows change instance
    // between rounds (a third of the steps land on the same one again, by chance of interleaving).
    for (const count of Object.values(figures.perInstance)) {
      expect(count / figures.rounds).toBeGreaterThan(0.2);
      expect(count / figures.rounds).toBeLessThan(0.47);
    }
    let steps = 0;
    let crossings = 0;
    for (const rounds of load.roundsByFlow().values()) {
      for (let index = 1; index < rounds.length; index += 1) {
        steps += 1;
        if (answeredBy(rounds[index] as RoundRecord) !== answeredBy(rounds[index - 1] as RoundRecord)) {
          crossings += 1;
        }
      }
    }
    expect(crossings / steps).toBeGreaterThan(0.5);
    await expectLogsAgree(load.rounds);
  });

  it("loses no paused flow when an instance is killed between two rounds and restarted", async () => {
    const paused = driver("kill");
    const flows = Array.from({ length: 12 }, () => paused.manual());
    await Promise.all(flows.map((flow) => flow.step()));
    const victim = instanceOf(paused.rounds[0] as RoundRecord);

    expect(await victim.kill()).toEqual({ code: null, signal: "SIGKILL" });
    // While it is dead, nginx finds its port refusing and passes each of its rounds to the next one.
    await Promise.all(flows.map((flow) => flow.step()));
    await victim.start();
    await Promise.all(flows.map((flow) => flow.finish()));

    expect(flows.every((flow) => flow.complete)).toBe(true);
    expect(paused.rounds.every((round) => round.status === 200)).toBe(true);
    const whileDead = paused.rounds.filter((round) => round.round === 2);
    expect(whileDead.some((round) => round.upstream.startsWith(`127.0.0.1:${victim.port},`))).toBe(true);
    expect(whileDead.map(instanceOf)).not.toContain(victim);
    // The restarted process opened rounds sealed before the kill, by itself or by the others.
    await vi.waitFor(() => {
      const finishedByRestarted = paused.rounds.filter(
        (round) => round.round === 3 && victim.served().get(round.requestId) === victim.generation,
      );
      expect(finishedByRestarted.length).toBeGreaterThan(0);
    }, LOGS_WITHIN);
    const records = flows.map(
      (flow): FlowRecord => ({ flow: flow.flow, kind: "create_service", ok: flow.complete, rounds: 3 }),
    );
    book.add(figuresOf("SIGKILL between rounds, 12 paused flows", records, paused.rounds, 0));
  });

  it("loses no flow when an instance is killed mid-load and restarted", async () => {
    const killed = driver("sigkill");
    const victim = fleet.instances[1] as ServerInstance;
    let exit: unknown;
    const figures = await measured("SIGKILL and restart under load", killed, async () => {
      const load = killed.background(CONCURRENCY);
      try {
        await killed.whenFlows(CONCURRENCY);
        exit = await victim.kill();
        await victim.start();
        await killed.whenFlows(killed.flows.length + CONCURRENCY);
      } finally {
        await load.stop();
      }
    });

    expect(exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(failuresOf(killed.flows)).toEqual([]);
    expect(figures.failedRounds).toBe(0);
    expect(figures.passedOnByProxy).toBeGreaterThan(0);
  });

  it("rotates keys instance by instance under load without failing a round, then refuses the retired key", {
    timeout: ROTATION_WITHIN_MS,
  }, async () => {
    const newKey = await fleet.mintKey();
    const rotating = driver("rotation");
    // A flow left pending before the rotation: its state is sealed under the first key.
    const stale = rotating.manual();
    await stale.step();
    const staleState = stale.requestState as string;
    const staleAnswers = stale.pendingAnswers();

    const restarts: number[] = [];
    const rotation = async () => {
      const load = rotating.background(CONCURRENCY, ROLLING_GAP_MS);
      try {
        await rollingRestart(fleet.environment([firstKey, newKey]), restarts);
        await rollingRestart(fleet.environment([newKey, firstKey]), restarts);
        // Phase 3 may start once no client can still hold a round sealed under the first key. An
        // operator, who cannot see the clients, waits one TTL for that; this driver sees all of its
        // own: once phase 2 has reached the last instance, nothing seals under the first key, so the
        // rounds it sealed live on only in the flows in flight now. The stale flow is kept on purpose.
        await rotating.settled();
        await rollingRestart(fleet.environment([newKey]), restarts);
        fleetKeys = [newKey];
      } finally {
        await load.stop();
      }
    };
    const figures = await measured(
      "three-phase key rotation, rolling, under load",
      rotating,
      rotation,
      restarts,
    );

    expect(failuresOf(rotating.flows)).toEqual([]);
    expect(figures.failedRounds).toBe(0);
    expect(figures.flows).toBeGreaterThan(CONCURRENCY * 3);

    const refusal = await refusalOf(stale.replay(staleState, staleAnswers));
    expectFrozenRefusal(refusal);
    const refusedBy = instanceOf(rotating.rounds.at(-1) as RoundRecord);
    await vi.waitFor(() => expect(loggedRefusal(refusedBy, "unknown key")).toBe(true), LOGS_WITHIN);
  });

  it("refuses requestState across SERVER_NAMEs, both ways, for the same token and keys", async () => {
    const renamed = await fleet.startExtra(
      "renamed",
      fleet.environment(fleetKeys, { SERVER_NAME: `${SERVER_NAME}-other`, KMS_SERVICE_NAME: SERVER_NAME }),
    );
    const viaProxy = driver("audience");
    const direct = new Driver(renamed.url, fleet.token, "renamed");
    const member = new Driver((fleet.instances[0] as ServerInstance).url, fleet.token, "member");

    const fleetFlow = viaProxy.manual();
    await fleetFlow.step();
    const fromFleet = { state: fleetFlow.requestState as string, answers: fleetFlow.pendingAnswers() };
    const refusedThere = await refusalOf(
      direct.manual(fleetFlow.flow).replay(fromFleet.state, fromFleet.answers),
    );
    // A fleet instance, reached directly like the renamed one, takes the very same round.
    const acceptedHere = await member.manual(fleetFlow.flow).replay(fromFleet.state, fromFleet.answers);

    const renamedFlow = direct.manual();
    await renamedFlow.step();
    const refusedByFleet = await refusalOf(
      viaProxy
        .manual(renamedFlow.flow)
        .replay(renamedFlow.requestState as string, renamedFlow.pendingAnswers()),
    );
    // The token is good there: the renamed instance completes flows of its own.
    const own = await direct.flow("summarize");

    expectFrozenRefusal(refusedThere);
    expect(acceptedHere).toMatchObject({ resultType: "input_required" });
    expectFrozenRefusal(refusedByFleet);
    expect(own.ok).toBe(true);
    const fleetRefuser = instanceOf(viaProxy.rounds.at(-1) as RoundRecord);
    await vi.waitFor(() => {
      expect(loggedRefusal(renamed, "audience")).toBe(true);
      expect(loggedRefusal(fleetRefuser, "audience")).toBe(true);
    }, LOGS_WITHIN);
  });

  it("wrote the figures of every scenario", async () => {
    const written = await book.write(RESULTS, context());
    expect(written.scenarios.map((figures) => figures.scenario)).toHaveLength(5);
    expect(written.scenarios.every((figures) => figures.failedFlows === 0)).toBe(true);
  });
});
