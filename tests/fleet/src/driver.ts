import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import {
  type CallToolResult,
  Client,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  type InputResponses,
  isInputRequiredResult,
} from "@roundtrip/sdk";
import { type ListRootsResult, silentLogger } from "@roundtrip/sdk/protocol";
import { UPSTREAM_HEADER } from "./proxy.js";

/** The three example tools that ask the client for something: elicitation, sampling and roots. */
export type FlowKind = "create_service" | "summarize" | "list_workspace";
const KINDS: readonly FlowKind[] = ["create_service", "summarize", "list_workspace"];
/** Requests per flow: create_service asks twice (two choices, then a confirmation), the others once. */
export const ROUNDS_PER_FLOW: Record<FlowKind, number> = {
  create_service: 3,
  summarize: 2,
  list_workspace: 2,
};

const ROOT = { uri: "file:///srv/fleet", name: "fleet" };
const MODEL = "fleet-model";
const SUMMARY = "Three instances answered every round.";

/** One HTTP request of a flow, as the client saw it through the proxy. */
export interface RoundRecord {
  flow: string;
  kind: FlowKind;
  /** 1 for the call, 2 for its first retry, ... */
  round: number;
  /** Sent as X-Request-Id: the instance that answers logs it, which is how its log names the round. */
  requestId: string;
  /** nginx's $upstream_addr: the instances it tried, the last one answered. Empty if none answered. */
  upstream: string;
  status: number;
  ms: number;
  error?: string;
}

export interface FlowRecord {
  flow: string;
  kind: FlowKind;
  ok: boolean;
  rounds: number;
  error?: string;
}

interface FlowTag {
  flow: string;
  kind: FlowKind;
  rounds: number;
}

/** Answers exactly what the example tools ask, as a user and a model would. */
function elicit(params: ElicitParams): ElicitResult {
  if (params.mode === "url") return { action: "decline" };
  const content: Record<string, string | boolean> = {};
  for (const field of Object.keys(params.requestedSchema.properties ?? {})) {
    if (field === "runtime") content.runtime = "node22";
    else if (field === "tier") content.tier = "small";
    else if (field === "confirm") content.confirm = true;
  }
  return { action: "accept", content };
}

function sample(): CreateMessageResult {
  return { role: "assistant", content: { type: "text", text: SUMMARY }, model: MODEL };
}

function roots(): ListRootsResult {
  return { roots: [ROOT] };
}

/** The arguments of a flow and the text its final result must carry. */
function callOf(kind: FlowKind, flow: string): { args: Record<string, unknown>; expected: string } {
  switch (kind) {
    case "create_service": {
      const name = `svc-${flow.toLowerCase().replace(/[^a-z0-9]/g, "-")}`.slice(0, 40);
      return { args: { name }, expected: `Created service ${name} on node22, size small` };
    }
    case "summarize":
      return {
        args: { text: `Flow ${flow} went through a proxy and three instances.` },
        expected: `Summary (by ${MODEL}): ${SUMMARY}`,
      };
    case "list_workspace":
      return { args: {}, expected: `The client shares 1 root(s):\n${ROOT.name}: ${ROOT.uri}` };
  }
}

function checkResult(result: CallToolResult, expected: string): void {
  const text = result.content?.[0]?.type === "text" ? result.content[0].text : undefined;
  if (result.isError || text !== expected) {
    throw new Error(`unexpected result: ${JSON.stringify(result)}`);
  }
}

/** The answers to one round's input requests, under the server's keys. */
export function answersTo(result: InputRequiredResult): InputResponses {
  const answers: InputResponses = {};
  for (const [key, request] of Object.entries(result.inputRequests ?? {}) as [string, InputRequest][]) {
    if (request.method === "elicitation/create") answers[key] = elicit(request.params as ElicitParams);
    else if (request.method === "sampling/createMessage") answers[key] = sample();
    else answers[key] = roots();
  }
  return answers;
}

/**
 * Runs flows with the SDK Client over the proxy: one Client, many flows at once, each a multi-round
 * tools/call answered by the client's elicitation, sampling and roots callbacks. Every request is
 * tagged and timed at the fetch the Client uses, so each round is attributed to its flow.
 */
export class Driver {
  readonly rounds: RoundRecord[] = [];
  readonly flows: FlowRecord[] = [];
  readonly #prefix: string;
  readonly #client: Client;
  readonly #tags = new AsyncLocalStorage<FlowTag>();
  #next = 0;
  #other = 0;
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #inFlight = new Set<Promise<FlowRecord>>();

  constructor(url: string, token: string, prefix: string) {
    this.#prefix = prefix;
    this.#client = new Client(url, {
      info: { name: "roundtrip-fleet-driver", version: "0.1.0" },
      onElicit: elicit,
      onSample: sample,
      onListRoots: roots,
      logger: silentLogger,
      http: { headers: { authorization: `Bearer ${token}` }, fetch: this.#fetch },
    });
  }

  /** Runs `count` flows, `concurrency` at a time, cycling through the three kinds. */
  async run(count: number, concurrency: number): Promise<void> {
    let started = 0;
    const lane = async () => {
      while (started < count) {
        started += 1;
        await this.flow();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  }

  /**
   * Keeps `concurrency` flows going until the returned stop() is called; stop() waits for them. Each
   * lane waits `gapMs` between flows (a user's think time), which bounds the load below what the
   * machine can take: a fleet restarted at full saturation measures the CPU, not the restart.
   */
  background(concurrency: number, gapMs = 0): { stop(): Promise<void> } {
    let stopping = false;
    const lane = async () => {
      while (!stopping) {
        await this.flow();
        if (gapMs > 0 && !stopping) await delay(gapMs);
      }
    };
    const lanes = Promise.all(Array.from({ length: concurrency }, lane));
    return {
      stop: async () => {
        stopping = true;
        await lanes;
      },
    };
  }

  /** One complete flow with the automatic loop; a failure is recorded, never thrown. */
  flow(kind: FlowKind = this.#nextKind()): Promise<FlowRecord> {
    const running = this.#flow(kind);
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running));
    return running;
  }

  /**
   * Resolves once every automatic flow in flight now has ended; flows started later are not waited
   * for. Manual flows are the test's own to finish.
   */
  async settled(): Promise<void> {
    await Promise.all(this.#inFlight);
  }

  async #flow(kind: FlowKind): Promise<FlowRecord> {
    const tag: FlowTag = { flow: this.#flowId(), kind, rounds: 0 };
    const { args, expected } = callOf(kind, tag.flow);
    let record: FlowRecord;
    try {
      const result = await this.#tags.run(tag, () => this.#client.callTool(kind, args));
      checkResult(result, expected);
      record = { flow: tag.flow, kind, ok: true, rounds: tag.rounds };
    } catch (error) {
      record = { flow: tag.flow, kind, ok: false, rounds: tag.rounds, error: String(error) };
    }
    this.flows.push(record);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.flows.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
    return record;
  }

  /** Resolves once `count` flows have ended, counting those that ended before. */
  whenFlows(count: number): Promise<void> {
    if (this.flows.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /**
   * A create_service flow driven by hand, one round per step(), so a test can act between rounds.
   * Given another flow's id, it sends that flow's arguments: a requestState is bound to them, so this
   * is how a round started elsewhere is continued through this driver's URL.
   */
  manual(continues?: string): ManualFlow {
    const tag: FlowTag = { flow: continues ?? this.#flowId(), kind: "create_service", rounds: 0 };
    return new ManualFlow(tag, callOf("create_service", tag.flow), (options) =>
      this.#tags.run(tag, () =>
        this.#client.manualRounds.callTool("create_service", callOf("create_service", tag.flow).args, {
          allowInputRequired: true,
          ...options,
        }),
      ),
    );
  }

  /** The rounds of each flow, in order. */
  roundsByFlow(): Map<string, RoundRecord[]> {
    const byFlow = new Map<string, RoundRecord[]>();
    for (const round of this.rounds) {
      const list = byFlow.get(round.flow) ?? [];
      list.push(round);
      byFlow.set(round.flow, list);
    }
    for (const list of byFlow.values()) list.sort((a, b) => a.round - b.round);
    return byFlow;
  }

  #nextKind(): FlowKind {
    return KINDS[this.#next % KINDS.length] as FlowKind;
  }

  #flowId(): string {
    this.#next += 1;
    return `${this.#prefix}-${this.#next}`;
  }

  /**
   * The Client's fetch: names each tools/call request after its flow and round (X-Request-Id) and
   * times it until its whole body has arrived. Other requests (server/discover) are not rounds.
   */
  readonly #fetch: typeof fetch = async (input, init) => {
    const tag = this.#tags.getStore();
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    const isRound = tag !== undefined && body.includes('"method":"tools/call"');
    let requestId: string;
    if (isRound) {
      tag.rounds += 1;
      requestId = `${tag.flow}.r${tag.rounds}`;
    } else {
      this.#other += 1;
      requestId = `${this.#prefix}.other-${this.#other}`;
    }
    headers.set("x-request-id", requestId);
    const started = performance.now();
    const note = (status: number, upstream: string, error?: string) => {
      if (!isRound) return;
      const round: RoundRecord = {
        flow: tag.flow,
        kind: tag.kind,
        round: tag.rounds,
        requestId,
        upstream,
        status,
        ms: performance.now() - started,
      };
      if (error !== undefined) round.error = error;
      this.rounds.push(round);
    };
    let response: Response;
    let bytes: ArrayBuffer;
    try {
      response = await fetch(input, { ...init, headers });
      bytes = await response.arrayBuffer();
    } catch (error) {
      note(0, "", String(error));
      throw error;
    }
    note(response.status, response.headers.get(UPSTREAM_HEADER) ?? "");
    return new Response(bytes.byteLength === 0 ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

type Leg = (options: { requestState?: string; inputResponses?: InputResponses }) => Promise<unknown>;

/** A flow whose rounds are sent one at a time; it keeps the latest requestState between them. */
export class ManualFlow {
  readonly flow: string;
  /** The latest round's requestState; undefined before the first round or once complete. */
  requestState: string | undefined;
  #pending: InputRequiredResult | undefined;
  #result: CallToolResult | undefined;
  readonly #expected: string;
  readonly #leg: Leg;

  constructor(tag: FlowTag, call: { expected: string }, leg: Leg) {
    this.flow = tag.flow;
    this.#expected = call.expected;
    this.#leg = leg;
  }

  get complete(): boolean {
    return this.#result !== undefined;
  }

  /** Sends the next round: the call itself, or a retry answering the pending input requests. */
  async step(): Promise<void> {
    if (this.#result) throw new Error(`${this.flow} is already complete`);
    const options = this.#pending
      ? { requestState: this.requestState, inputResponses: answersTo(this.#pending) }
      : {};
    const answer = await this.#leg(options);
    if (isInputRequiredResult(answer)) {
      this.#pending = answer;
      this.requestState = answer.requestState;
      return;
    }
    const result = answer as CallToolResult;
    checkResult(result, this.#expected);
    this.#result = result;
    this.#pending = undefined;
    this.requestState = undefined;
  }

  /** Sends rounds until the flow completes. */
  async finish(): Promise<void> {
    while (!this.complete) await this.step();
  }

  /** Sends a round with a requestState and answers kept from earlier, as a client resuming late would. */
  replay(requestState: string, inputResponses: InputResponses): Promise<unknown> {
    return this.#leg({ requestState, inputResponses });
  }

  /** The answers to the pending round, to keep beside its requestState. */
  pendingAnswers(): InputResponses {
    if (!this.#pending) throw new Error(`${this.flow} has no pending round`);
    return answersTo(this.#pending);
  }
}
