import { describe, expect, it } from "vitest";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { CreateMessageResult } from "../../protocol/schemas/input-required.js";
import type { ElicitParams } from "../callbacks.js";
import { Client, type ClientOptions } from "../client.js";
import { InputRequiredRoundsExceededError } from "../errors.js";
import { FakeClock, RecordingTransport } from "../test-support/recording.js";
import { AWKWARD_STATE, roundsServer } from "../test-support/rounds-server.js";
import { MemoryClientTransport } from "../transport/memory-client.js";
import type { InputRequiredRound, RoundDecision, SavedRound } from "./rounds.js";

const answerName = (name: string) => async (params: ElicitParams) =>
  params.mode === "url" ? { action: "accept" as const } : { action: "accept" as const, content: { name } };
const sample = async (): Promise<CreateMessageResult> => ({
  role: "assistant",
  content: { type: "text", text: "hi" },
  model: "m",
});
const callbacks: ClientOptions = {
  onElicit: answerName("Ada"),
  onSample: sample,
  onListRoots: async () => ({ roots: [{ uri: "file:///w" }] }),
};

/** One server; each client of it records what it sent. */
function fixture() {
  const rounds = roundsServer();
  const connect = (options: ClientOptions = {}) => {
    const transport = new RecordingTransport(new MemoryClientTransport(rounds.server));
    const client = new Client(transport, { clock: new FakeClock(), ...options });
    return { client, transport };
  };
  return { ...rounds, connect };
}

/** A hook that records every round it sees and decides with `decide` (answer, by default). */
function recorder(decide: (round: InputRequiredRound) => RoundDecision = () => ({ kind: "answer" })) {
  const seen: InputRequiredRound[] = [];
  const onRound = (round: InputRequiredRound) => {
    seen.push(round);
    return decide(round);
  };
  return { seen, onRound, numbers: () => seen.map((round) => round.round) };
}

const keysOf = (round: InputRequiredRound) => Object.keys(round.result.inputRequests ?? {});
const THREE_ROUNDS = { method: "tools/call", params: { name: "three_rounds" } } as const;

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("client.runRounds with an onRound hook", () => {
  it("shows the hook every round in order, with its number, its call and who asks", async () => {
    const { connect } = fixture();
    const { client } = connect(callbacks);
    const hook = recorder();
    const outcome = await client.runRounds(THREE_ROUNDS, { onRound: hook.onRound });
    expect(outcome.kind).toBe("complete");
    if (outcome.kind === "complete") expect(textOf(outcome.result)).toBe("Ada:hi with file:///w");
    expect(hook.numbers()).toEqual([1, 2, 3]);
    expect(hook.seen.map(keysOf)).toEqual([["step1"], ["step2"], ["step3"]]);
    expect(hook.seen.map((round) => round.result.requestState)).toEqual([
      "after-step-1",
      "after-step-2:Ada",
      "after-step-3:Ada:hi",
    ]);
    expect(hook.seen[0]).toMatchObject({
      method: "tools/call",
      params: { name: "three_rounds" },
      target: "three_rounds",
      server: { name: "rounds", version: "1.0.0" },
    });
    expect(hook.seen[0]?.signal.aborted).toBe(false);
  });

  it("retries with the hook's own inputResponses, asking no callback", async () => {
    const { connect } = fixture();
    const { client, transport } = connect({ capabilities: { elicitation: { form: {} } } });
    const outcome = await client.runRounds(
      { method: "tools/call", params: { name: "greet", arguments: { polite: true } } },
      {
        onRound: () => ({
          kind: "answer",
          inputResponses: { user_name: { action: "accept", content: { name: "Eve" } } },
        }),
      },
    );
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("Hello, Eve!");
    const retry = transport.of("tools/call")[1] as JsonRpcRequest;
    expect(retry.params).toMatchObject({ name: "greet", arguments: { polite: true } });
    expect(retry.params?.requestState).toBe(AWKWARD_STATE);
  });

  it("without a hook, answers through the callbacks as callTool does", async () => {
    const { connect } = fixture();
    const { client } = connect(callbacks);
    const outcome = await client.runRounds(THREE_ROUNDS);
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("Ada:hi with file:///w");
  });

  it("stops mid-flow and hands back the round: the request, its number and what the server asked", async () => {
    const { connect, calls } = fixture();
    const { client } = connect(callbacks);
    const hook = recorder((round) => (round.round === 2 ? { kind: "stop" } : { kind: "answer" }));
    const outcome = await client.runRounds(THREE_ROUNDS, { onRound: hook.onRound });
    expect(outcome).toMatchObject({
      kind: "stopped",
      saved: {
        method: "tools/call",
        params: { name: "three_rounds" },
        round: 2,
        result: {
          resultType: "input_required",
          inputRequests: { step2: expect.objectContaining({ method: "sampling/createMessage" }) },
          requestState: "after-step-2:Ada",
        },
      },
    });
    // Nothing was sent for the round it stopped at.
    expect(calls.get("three_rounds")).toBe(2);
    expect(hook.numbers()).toEqual([1, 2]);
  });

  it("resumes the saved round in a fresh Client: decided first, its state echoed, numbers going on", async () => {
    const { connect, calls } = fixture();
    const first = connect(callbacks).client;
    const stopped = await first.runRounds(THREE_ROUNDS, {
      onRound: (round) => (round.round === 2 ? { kind: "stop" } : { kind: "answer" }),
    });
    if (stopped.kind !== "stopped") throw new Error("expected the call to stop");
    // Kept as JSON, as a process that exits would keep it.
    const saved = JSON.parse(JSON.stringify(stopped.saved)) as SavedRound<"tools/call">;

    const { client, transport } = connect(callbacks);
    const hook = recorder();
    const outcome = await client.runRounds(saved, { onRound: hook.onRound });
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("Ada:hi with file:///w");
    expect(hook.numbers()).toEqual([2, 3]);
    expect(hook.seen.map(keysOf)).toEqual([["step2"], ["step3"]]);
    const [resumed] = transport.of("tools/call") as [JsonRpcRequest];
    expect(resumed.params).toMatchObject({ name: "three_rounds", requestState: "after-step-2:Ada" });
    expect(Object.keys(resumed.params?.inputResponses as object)).toEqual(["step2"]);
    expect(calls.get("three_rounds")).toBe(4);
  });

  it("stopping at the saved round again sends nothing and hands back the same round", async () => {
    const { connect } = fixture();
    const first = connect(callbacks).client;
    const stopped = await first.runRounds(THREE_ROUNDS, { onRound: () => ({ kind: "stop" }) });
    if (stopped.kind !== "stopped") throw new Error("expected the call to stop");
    const { client, transport } = connect();
    const again = await client.runRounds(stopped.saved, { onRound: () => ({ kind: "stop" }) });
    expect(again).toEqual(stopped);
    expect(transport.of("tools/call")).toHaveLength(0);
  });

  it("resumes from a saved requestState and inputResponses too, as callTool does", async () => {
    const { connect } = fixture();
    const { client } = connect({ capabilities: { elicitation: { form: {} } } });
    const outcome = await client.runRounds(
      { method: "tools/call", params: { name: "greet" } },
      {
        requestState: AWKWARD_STATE,
        inputResponses: { user_name: { action: "accept", content: { name: "Cy" } } },
        onRound: () => ({ kind: "stop" }),
      },
    );
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("Hello, Cy!");
  });

  it("still backs off on state-only rounds, which the hook sees too", async () => {
    const clock = new FakeClock();
    const { connect } = fixture();
    const { client } = connect({ clock });
    const hook = recorder();
    const outcome = await client.runRounds(
      { method: "tools/call", params: { name: "state_only", arguments: { legs: 3 } } },
      { onRound: hook.onRound },
    );
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("done after 3 state-only legs");
    expect(clock.sleeps).toEqual([50, 100, 200]);
    expect(hook.numbers()).toEqual([1, 2, 3]);
    expect(hook.seen.map(keysOf)).toEqual([[], [], []]);
  });

  it("a resumed state-only round waits the backoff before it is sent", async () => {
    const clock = new FakeClock();
    const { connect } = fixture();
    const first = connect().client;
    const stopped = await first.runRounds(
      { method: "tools/call", params: { name: "state_only", arguments: { legs: 2 } } },
      { onRound: () => ({ kind: "stop" }) },
    );
    if (stopped.kind !== "stopped") throw new Error("expected the call to stop");
    const { client } = connect({ clock });
    const outcome = await client.runRounds(stopped.saved, { onRound: () => ({ kind: "answer" }) });
    expect(outcome.kind === "complete" && textOf(outcome.result)).toBe("done after 2 state-only legs");
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it("counts inputRequiredMaxRounds per run: a resumed run has its own budget, its numbers go on", async () => {
    const { connect, calls } = fixture();
    const options = { ...callbacks, inputRequiredMaxRounds: 2 };
    const stopped = await connect(options).client.runRounds(
      { method: "tools/call", params: { name: "endless" } },
      { onRound: (round) => (round.round === 2 ? { kind: "stop" } : { kind: "answer" }) },
    );
    if (stopped.kind !== "stopped") throw new Error("expected the call to stop");
    expect(calls.get("endless")).toBe(2);

    const hook = recorder();
    const resumed = connect(options).client.runRounds(stopped.saved, { onRound: hook.onRound });
    await expect(resumed).rejects.toBeInstanceOf(InputRequiredRoundsExceededError);
    // The saved round 2, then the two this run may receive; the third it receives is refused.
    expect(hook.numbers()).toEqual([2, 3, 4]);
    expect(calls.get("endless")).toBe(5);
  });

  it("runs prompts and resource templates the same way, with their own results", async () => {
    const { connect } = fixture();
    const prompt = await connect({ capabilities: { elicitation: { form: {} } } }).client.runRounds(
      { method: "prompts/get", params: { name: "p", arguments: { topic: "x" } } },
      { onRound: () => ({ kind: "stop" }) },
    );
    if (prompt.kind !== "stopped") throw new Error("expected the prompt to stop");
    expect(prompt.saved).toMatchObject({ method: "prompts/get", round: 1, params: { name: "p" } });
    const resumed = await connect(callbacks).client.runRounds(prompt.saved);
    if (resumed.kind === "complete")
      expect(resumed.result.messages[0]?.content).toMatchObject({ text: "Write to Ada" });
    expect(resumed.kind).toBe("complete");

    const read = await connect(callbacks).client.runRounds({
      method: "resources/read",
      params: { uri: "memo://7" },
    });
    if (read.kind === "complete") expect(read.result.contents[0]).toMatchObject({ text: "memo://7 for Ada" });
    expect(read.kind).toBe("complete");
  });

  it("fails the call with the hook's error and sends nothing more", async () => {
    const { connect, calls } = fixture();
    const { client } = connect(callbacks);
    const outcome = client.runRounds(THREE_ROUNDS, {
      onRound: () => {
        throw new Error("no one to ask");
      },
    });
    await expect(outcome).rejects.toThrow("no one to ask");
    expect(calls.get("three_rounds")).toBe(1);
  });

  it("abandons a hook still deciding when the call's signal aborts", async () => {
    const controller = new AbortController();
    const { connect } = fixture();
    const { client } = connect(callbacks);
    let hookSignal: AbortSignal | undefined;
    const outcome = client.runRounds(THREE_ROUNDS, {
      signal: controller.signal,
      onRound: (round) => {
        hookSignal = round.signal;
        controller.abort(new Error("user gave up"));
        return new Promise<RoundDecision>(() => {});
      },
    });
    await expect(outcome).rejects.toThrow("user gave up");
    expect(hookSignal?.aborted).toBe(true);
  });

  it("refuses what cannot be resumed, saying why", async () => {
    const { connect } = fixture();
    const { client } = connect(callbacks);
    const saved: SavedRound = {
      method: "tools/call",
      params: { name: "greet" },
      round: 1,
      result: { resultType: "input_required", requestState: "s" },
    };
    await expect(client.runRounds(saved, { requestState: "other" })).rejects.toThrow(
      /saved round and inputResponses or requestState/,
    );
    await expect(client.runRounds({ ...saved, round: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(client.runRounds({ ...saved, result: { resultType: "complete" } as never })).rejects.toThrow(
      /not an InputRequiredResult: resultType/,
    );
    await expect(
      client.runRounds(THREE_ROUNDS, { onRound: () => undefined as unknown as RoundDecision }),
    ).rejects.toThrow(/onRound returned undefined for round 1 of tools\/call/);
  });
});
