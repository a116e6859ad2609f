import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import type { ElicitParams } from "../callbacks.js";
import { Client, type ClientOptions } from "../client.js";
import { InputCallbackError } from "../errors.js";
import { type HttpPeer, serveOverHttp } from "../test-support/http-peer.js";
import { FakeClock } from "../test-support/recording.js";
import { AWKWARD_STATE, roundsServer } from "../test-support/rounds-server.js";
import type { RoundTrace } from "./round-trace.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

const answerName = (name: string) => (params: ElicitParams) =>
  params.mode === "url" ? { action: "accept" as const } : { action: "accept" as const, content: { name } };

const CALLBACKS: ClientOptions = {
  clock: new FakeClock(),
  logger: silentLogger,
  onElicit: answerName("Ada"),
  onSample: () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
  onListRoots: () => ({ roots: [{ uri: "file:///work" }] }),
};

async function clientOf(options: ClientOptions = CALLBACKS): Promise<Client> {
  const peer = await serveOverHttp(roundsServer().server);
  peers.push(peer);
  return new Client(peer.url, options);
}

/** The trace without its durations, which are checked only to be durations. */
function shapes(traces: RoundTrace[]) {
  for (const trace of traces) {
    expect(Number.isFinite(trace.serverMs) && trace.serverMs >= 0).toBe(true);
    expect(Number.isFinite(trace.answerMs) && trace.answerMs >= 0).toBe(true);
  }
  return traces.map(({ serverMs: _s, answerMs: _a, ...rest }) => rest);
}

describe("onRoundTrace: each request of a call, as it ends", () => {
  it("names what each round asked and which callback answered it, through the last request", async () => {
    const client = await clientOf();
    const traces: RoundTrace[] = [];
    await client.callTool("three_rounds", {}, { onRoundTrace: (trace) => traces.push(trace) });
    const common = { method: "tools/call", target: "three_rounds" };
    expect(shapes(traces)).toEqual([
      {
        ...common,
        round: 1,
        outcome: "input_required",
        requestState: true,
        requests: [{ key: "step1", method: "elicitation/create", answeredBy: "onElicit" }],
      },
      {
        ...common,
        round: 2,
        outcome: "input_required",
        requestState: true,
        requests: [{ key: "step2", method: "sampling/createMessage", answeredBy: "onSample" }],
      },
      {
        ...common,
        round: 3,
        outcome: "input_required",
        requestState: true,
        requests: [{ key: "step3", method: "roots/list", answeredBy: "onListRoots" }],
      },
      { ...common, round: 4, outcome: "complete", requestState: false, requests: [] },
    ]);
    expect(JSON.stringify(traces)).not.toContain("after-step");
  });

  it("traces prompts, resource reads and a call that needs no input", async () => {
    const client = await clientOf();
    const traces: RoundTrace[] = [];
    const onRoundTrace = (trace: RoundTrace) => traces.push(trace);
    await client.getPrompt("p", undefined, { onRoundTrace });
    await client.readResource("memo://9", { onRoundTrace });
    await client.callTool("forecast", { region: "eu" }, { onRoundTrace });
    expect(traces.map((t) => [t.method, t.target, t.round, t.outcome, t.requests.map((r) => r.key)])).toEqual(
      [
        ["prompts/get", "p", 1, "input_required", ["who"]],
        ["prompts/get", "p", 2, "complete", []],
        ["resources/read", "memo://9", 1, "input_required", ["reader"]],
        ["resources/read", "memo://9", 2, "complete", []],
        ["tools/call", "forecast", 1, "complete", []],
      ],
    );
  });

  it("reports the round a failing callback left unanswered, then the error", async () => {
    const client = await clientOf({
      ...CALLBACKS,
      onElicit: () => {
        throw new Error("the user closed the dialog");
      },
    });
    const traces: RoundTrace[] = [];
    await expect(
      client.callTool("greet", {}, { onRoundTrace: (trace) => traces.push(trace) }),
    ).rejects.toBeInstanceOf(InputCallbackError);
    expect(shapes(traces)).toEqual([
      {
        method: "tools/call",
        target: "greet",
        round: 1,
        outcome: "input_required",
        requestState: true,
        requests: [{ key: "user_name", method: "elicitation/create", answeredBy: "unanswered" }],
      },
    ]);
  });

  it("reports a request the server refused as failed", async () => {
    const client = await clientOf();
    const traces: RoundTrace[] = [];
    await expect(
      client.callTool("no_such_tool", {}, { onRoundTrace: (trace) => traces.push(trace) }),
    ).rejects.toThrow();
    expect(traces.map((t) => [t.round, t.outcome])).toEqual([[1, "failed"]]);
  });

  it("tells the onRound hook's own answers and a stop apart, in runRounds", async () => {
    const client = await clientOf({ clock: new FakeClock(), capabilities: { elicitation: { form: {} } } });
    const traces: RoundTrace[] = [];
    const onRoundTrace = (trace: RoundTrace) => traces.push(trace);
    const outcome = await client.runRounds(
      { method: "tools/call", params: { name: "greet" } },
      {
        onRoundTrace,
        onRound: () => ({
          kind: "answer",
          inputResponses: { user_name: { action: "accept", content: { name: "Bo" } } },
        }),
      },
    );
    expect(outcome.kind).toBe("complete");
    expect(traces[0]?.requests).toEqual([
      { key: "user_name", method: "elicitation/create", answeredBy: "onRound" },
    ]);
    traces.length = 0;
    const stopped = await client.runRounds(
      { method: "tools/call", params: { name: "greet" } },
      { onRoundTrace, onRound: () => ({ kind: "stop" }) },
    );
    expect(stopped.kind === "stopped" && stopped.saved.result.requestState).toBe(AWKWARD_STATE);
    expect(traces.map((t) => [t.round, t.outcome, t.requests[0]?.answeredBy])).toEqual([
      [1, "input_required", "unanswered"],
    ]);
  });
});
