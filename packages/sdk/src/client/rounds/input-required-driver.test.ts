import { describe, expect, it } from "vitest";
import { elicitForm, listRoots } from "../../protocol/input-required.js";
import type {
  InputRequest,
  InputRequiredResult,
  InputResponse,
} from "../../protocol/schemas/input-required.js";
import { InputRequiredRoundsExceededError } from "../errors.js";
import { FakeClock } from "../test-support/recording.js";
import {
  DEFAULT_MAX_ROUNDS,
  driveRounds,
  type InputRequiredLoop,
  type LoopRound,
  type RetryFields,
  runInputRequiredLoop,
} from "./input-required-driver.js";

const FORM = elicitForm("Name?", { type: "object", properties: { name: { type: "string" } } });
const DONE = { resultType: "complete", content: [] };
const ACCEPT: InputResponse = { action: "accept", content: { name: "Ada" } };

type Leg = InputRequiredResult | typeof DONE;

/** A loop whose server answers with `legs` in order and records what each retry carried. */
function scripted(legs: Leg[], overrides: Partial<InputRequiredLoop<typeof DONE>> = {}) {
  const sent: RetryFields[] = [];
  const clock = new FakeClock();
  const loop: InputRequiredLoop<typeof DONE> = {
    method: "tools/call",
    maxRounds: DEFAULT_MAX_ROUNDS,
    clock,
    async send(fields) {
      sent.push(fields);
      const leg = legs[Math.min(sent.length - 1, legs.length - 1)];
      if (!leg) throw new Error("script exhausted");
      return leg;
    },
    async answer() {
      return ACCEPT;
    },
    ...overrides,
  };
  return { loop, sent, clock };
}

const asks = (
  requestState?: string,
  requests: Record<string, InputRequest> = { q: FORM },
): InputRequiredResult =>
  requestState === undefined
    ? { resultType: "input_required", inputRequests: requests }
    : { resultType: "input_required", inputRequests: requests, requestState };
const stateOnly = (requestState: string): InputRequiredResult => ({
  resultType: "input_required",
  requestState,
});

describe("runInputRequiredLoop", () => {
  it("answers one round and retries with the answers under the server's keys", async () => {
    const { loop, sent } = scripted([asks("s1"), DONE]);
    await expect(runInputRequiredLoop(loop)).resolves.toEqual(DONE);
    expect(sent).toEqual([{}, { inputResponses: { q: ACCEPT }, requestState: "s1" }]);
  });

  it("echoes requestState as the very same string and leaves it out when the server sent none", async () => {
    const state = `\u0000 ${"é".repeat(3)} "quoted" \n=?base64?AA==?= `;
    const { loop, sent } = scripted([asks(state), asks(undefined), DONE]);
    await runInputRequiredLoop(loop);
    expect(sent[1]?.requestState).toBe(state);
    expect(sent[2]).toEqual({ inputResponses: { q: ACCEPT } });
    expect(sent[2]).not.toHaveProperty("requestState");
  });

  it("sends only the latest round's answers", async () => {
    const { loop, sent } = scripted([asks("a", { first: FORM }), asks("b", { second: listRoots() }), DONE], {
      async answer(key) {
        return key === "second" ? { roots: [] } : ACCEPT;
      },
    });
    await runInputRequiredLoop(loop);
    expect(sent[2]).toEqual({ inputResponses: { second: { roots: [] } }, requestState: "b" });
  });

  it("dispatches every request of a round at once: a gate that opens when all have started does not deadlock", async () => {
    const keys = ["a", "b", "c"];
    let started = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { loop } = scripted([asks("s", Object.fromEntries(keys.map((key) => [key, FORM]))), DONE], {
      async answer() {
        started += 1;
        if (started === keys.length) open();
        await gate;
        return ACCEPT;
      },
    });
    await expect(runInputRequiredLoop(loop)).resolves.toEqual(DONE);
    expect(started).toBe(3);
  });

  it("retries maxRounds times, then fails with a typed error that says how to go further", async () => {
    const { loop, sent } = scripted([asks("forever")], { maxRounds: 3 });
    const error = await runInputRequiredLoop(loop).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect((error as InputRequiredRoundsExceededError).maxRounds).toBe(3);
    expect((error as Error).message).toMatch(/inputRequiredMaxRounds.*allowInputRequired/);
    expect(sent).toHaveLength(4);
  });

  it("defaults to 10 rounds", async () => {
    const { loop, sent } = scripted([asks("forever")]);
    await expect(runInputRequiredLoop(loop)).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(sent).toHaveLength(DEFAULT_MAX_ROUNDS + 1);
  });

  it("backs off 50 ms doubling to 250 ms on state-only rounds, and a round with questions resets it", async () => {
    const legs: Leg[] = [
      ...["1", "2", "3", "4", "5", "6"].map(stateOnly),
      asks("q"),
      stateOnly("7"),
      stateOnly("8"),
      DONE,
    ];
    const { loop, clock, sent } = scripted(legs, { maxRounds: 20 });
    await runInputRequiredLoop(loop);
    expect(clock.sleeps).toEqual([50, 100, 200, 250, 250, 250, 50, 100]);
    expect(sent[1]).toEqual({ requestState: "1" });
  });

  it("counts state-only rounds toward the limit", async () => {
    const { loop, clock } = scripted([stateOnly("again")], { maxRounds: 2 });
    await expect(runInputRequiredLoop(loop)).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it("starts from a seed, to resume a flow saved elsewhere", async () => {
    const { loop, sent } = scripted([DONE], {
      seed: { inputResponses: { q: ACCEPT }, requestState: "saved" },
    });
    await runInputRequiredLoop(loop);
    expect(sent).toEqual([{ inputResponses: { q: ACCEPT }, requestState: "saved" }]);
  });

  it("fails the call when a callback fails, aborts its siblings and does not retry", async () => {
    const siblingAborted: unknown[] = [];
    const { loop, sent } = scripted([asks("s", { bad: FORM, slow: FORM }), DONE], {
      async answer(key, _request, _round, signal) {
        if (key === "bad") throw new Error("user closed the dialog");
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        siblingAborted.push(signal.reason);
        throw signal.reason;
      },
    });
    await expect(runInputRequiredLoop(loop)).rejects.toThrow("user closed the dialog");
    expect(siblingAborted).toHaveLength(1);
    expect(sent).toHaveLength(1);
  });

  it("stops mid-round when the call's signal aborts", async () => {
    const controller = new AbortController();
    let answering: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      answering = resolve;
    });
    const { loop, sent } = scripted([asks("s"), DONE], {
      signal: controller.signal,
      async answer() {
        answering();
        return new Promise<InputResponse>(() => {});
      },
    });
    const running = runInputRequiredLoop(loop);
    await started;
    controller.abort(new Error("user gave up"));
    await expect(running).rejects.toThrow("user gave up");
    expect(sent).toHaveLength(1);
  });

  it("stops during a backoff wait when the signal aborts", async () => {
    const controller = new AbortController();
    const { loop } = scripted([stateOnly("wait"), DONE], {
      signal: controller.signal,
      clock: {
        sleep: (_ms, signal) =>
          new Promise((_resolve, reject) => {
            controller.abort(new Error("deadline"));
            reject(signal?.reason);
          }),
      },
    });
    await expect(runInputRequiredLoop(loop)).rejects.toThrow("deadline");
  });
});

describe("driveRounds with a decide hook", () => {
  it("decides every round in order; stop ends the loop at that round and sends nothing for it", async () => {
    const seen: number[] = [];
    const answered: number[] = [];
    const { loop, sent } = scripted([asks("a"), stateOnly("b"), asks("c"), DONE], {
      decide: ({ round }) => {
        seen.push(round);
        return round === 3 ? { kind: "stop" } : { kind: "answer" };
      },
      async answer(_key, _request, round) {
        answered.push(round);
        return ACCEPT;
      },
    });
    const outcome = await driveRounds(loop);
    expect(outcome).toEqual({ kind: "stopped", round: 3, result: asks("c") });
    expect(seen).toEqual([1, 2, 3]);
    expect(answered).toEqual([1]);
    expect(sent).toHaveLength(3);
  });

  it("sends a decision's inputResponses instead of answering, and still backs off on state-only rounds", async () => {
    const mine = { q: { action: "decline" as const } };
    const { loop, sent, clock } = scripted(
      [stateOnly("1"), stateOnly("2"), asks("3"), stateOnly("4"), DONE],
      {
        decide: ({ result }) =>
          result.inputRequests ? { kind: "answer", inputResponses: mine } : { kind: "answer" },
        async answer() {
          throw new Error("the decision answered");
        },
      },
    );
    await expect(driveRounds(loop)).resolves.toEqual({ kind: "complete", result: DONE });
    expect(clock.sleeps).toEqual([50, 100, 50]);
    expect(sent[3]).toEqual({ inputResponses: mine, requestState: "3" });
    expect(sent[2]).toEqual({ requestState: "2" });
  });

  it("resumes from a saved round: decided first, numbered on from it, with a budget of its own", async () => {
    const from: LoopRound = { round: 7, result: asks("saved") };
    const seen: number[] = [];
    const { loop, sent } = scripted([asks("forever")], {
      from,
      maxRounds: 2,
      decide: ({ round }) => {
        seen.push(round);
        return { kind: "answer" };
      },
    });
    await expect(driveRounds(loop)).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(seen).toEqual([7, 8, 9]);
    expect(sent[0]).toEqual({ inputResponses: { q: ACCEPT }, requestState: "saved" });
    expect(sent).toHaveLength(3);
  });

  it("a saved state-only round waits the backoff before its retry", async () => {
    const { loop, sent, clock } = scripted([DONE], {
      from: { round: 1, result: stateOnly("later") },
      decide: () => ({ kind: "answer" }),
    });
    await driveRounds(loop);
    expect(clock.sleeps).toEqual([50]);
    expect(sent).toEqual([{ requestState: "later" }]);
  });

  it("stops waiting for the hook when the signal aborts", async () => {
    const controller = new AbortController();
    const { loop, sent } = scripted([asks("s"), DONE], {
      signal: controller.signal,
      decide: () => {
        controller.abort(new Error("user gave up"));
        return new Promise(() => {});
      },
    });
    await expect(driveRounds(loop)).rejects.toThrow("user gave up");
    expect(sent).toHaveLength(1);
  });
});
