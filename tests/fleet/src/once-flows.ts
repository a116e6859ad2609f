import { setTimeout as delay } from "node:timers/promises";
import { Client, type InputResponses, isInputRequiredResult, McpError } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import {
  another,
  approvalUrlOf,
  CONFIRMED,
  createServiceAnswers,
  OPENED,
  type Retry,
  textOf,
} from "@roundtrip/test-support/rounds";
import { approveThroughProxy } from "./approval.js";

/**
 * Flows of the reference server's once-tools driven through a fault: `deploy` (a confirmation, an
 * approval given on its page, then the deployment) and `create_service` (two rounds of questions, then
 * the creation). Each round a server turns away with an error is sent again, as a client that trusts
 * "retry" would, until the tool answers or the server says the round will never run.
 */

/** Why the server turned a round away, from its answer. */
export type Refusal =
  /** The once-store did not answer (stopped, restarting, out of memory): "…is unavailable…". */
  | "unavailable"
  /** Too few replicas acknowledged a write (REDIS_REPLICA_ACKS): "…did not confirm the round…". */
  | "unconfirmed"
  /** Another attempt holds the round's lease: "…still running this round elsewhere…". */
  | "in-progress"
  /** Any other error: a failing handler (an approval write refused), the proxy, the network. */
  | "other";

export interface OnceFlow {
  tool: "deploy" | "create_service";
  /** A deploy flow's release: the key its one effect is logged under. */
  release?: string;
  /**
   * answered: the tool answered its last round; outcome-unknown: the server said the round started
   * and will never run again (-32603 round_outcome_unknown); refused: the frozen -32602.
   */
  end: "answered" | "outcome-unknown" | "refused";
  /** The last round's text, or the error that ended the flow. */
  outcome: string;
  /** A deploy's approval page answered 200: the approval was recorded. */
  approved: boolean;
  /** Every refusal the flow met on its way, each followed by a retry. */
  refusals: Refusal[];
  /** The messages of the refusals, for the figures and for a failing test to show. */
  messages: string[];
}

/** A round or a flow the server said will never complete: it ends the flow. */
class FlowEnded extends Error {
  readonly end: OnceFlow["end"];

  constructor(end: OnceFlow["end"], message: string) {
    super(message);
    this.end = end;
  }
}

const RETRY_MS = 100;
/** A flow outlives any fault here (a Redis restart, a failover, a lease lapsing) on a busy machine. */
const FLOW_WITHIN_MS = 180_000;
/** deploy's state-only rounds while the approval is not yet seen, before the flow counts it as lost. */
const MAX_WAITING_ROUNDS = 40;

export class OnceFlows {
  readonly flows: OnceFlow[] = [];
  /** Rounds a tool answered so far, across the flows: how far the traffic has got. */
  answered = 0;
  readonly #url: string;
  readonly #token: string;

  /** `url` is the fleet's public MCP endpoint (the proxy), `token` a person's (deploy needs a user). */
  constructor(url: string, token: string) {
    this.#url = url;
    this.#token = token;
  }

  /** A deploy of `service` to staging, its approval given on its page, to its end. */
  async deploy(service: string): Promise<OnceFlow> {
    const flow = this.#begin("deploy");
    const args = { service, env: "staging" };
    return this.#ended(flow, async () => {
      const asked = another(await this.#round(flow, "deploy", args, {}));
      flow.release = /rel-[0-9a-f]{32}/.exec(JSON.stringify(asked))?.[0];
      const approval = another(
        await this.#round(flow, "deploy", args, {
          requestState: asked.requestState,
          inputResponses: CONFIRMED,
        }),
      );
      const url = approvalUrlOf(approval);
      await this.#persist(flow, () => approveThroughProxy(this.#url, url));
      flow.approved = true;
      let retry: Retry = { requestState: approval.requestState, inputResponses: OPENED };
      for (let waits = 0; waits < MAX_WAITING_ROUNDS; waits += 1) {
        const result = await this.#round(flow, "deploy", args, retry);
        if (!isInputRequiredResult(result)) return textOf(result);
        const next = another(result);
        // The URL asked again (after its waits) is answered as opened: the approval is in the store.
        const responses: InputResponses | undefined = next.inputRequests?.approval ? OPENED : undefined;
        retry = { requestState: next.requestState, ...(responses ? { inputResponses: responses } : {}) };
        await delay(RETRY_MS);
      }
      return `the approval of ${flow.release} was never seen after ${MAX_WAITING_ROUNDS} rounds`;
    });
  }

  /** A create_service of `name`, its questions answered, to its end. */
  async createService(name: string): Promise<OnceFlow> {
    const flow = this.#begin("create_service");
    const args = { name };
    const answers = (result: Parameters<typeof createServiceAnswers>[0]) =>
      createServiceAnswers(result, { runtime: "node22", tier: "small" });
    return this.#ended(flow, async () => {
      const first = another(await this.#round(flow, "create_service", args, {}));
      const second = another(
        await this.#round(flow, "create_service", args, {
          requestState: first.requestState,
          inputResponses: answers(first),
        }),
      );
      return textOf(
        await this.#round(flow, "create_service", args, {
          requestState: second.requestState,
          inputResponses: answers(second),
        }),
      );
    });
  }

  #begin(tool: OnceFlow["tool"]): OnceFlow {
    const flow: OnceFlow = {
      tool,
      end: "answered",
      outcome: "",
      approved: false,
      refusals: [],
      messages: [],
    };
    this.flows.push(flow);
    return flow;
  }

  async #ended(flow: OnceFlow, run: () => Promise<string>): Promise<OnceFlow> {
    try {
      flow.outcome = await run();
    } catch (error) {
      if (!(error instanceof FlowEnded)) throw error;
      flow.end = error.end;
      flow.outcome = error.message;
    }
    return flow;
  }

  /** One round, on a client of its own, sent again after every refusal. */
  async #round(flow: OnceFlow, tool: string, args: Record<string, unknown>, retry: Retry): Promise<unknown> {
    const result = await this.#persist(flow, async () => {
      const answer = await new Client(this.#url, {
        logger: silentLogger,
        // Declares the elicitation capability the tools ask through; the rounds are answered here.
        onElicit: () => ({ action: "cancel" }),
        http: { headers: { authorization: `Bearer ${this.#token}` }, fetch: bounded },
      }).manualRounds.callTool(tool, args, { allowInputRequired: true, ...retry });
      // A handler that threw (deploy's approval store refusing a write): the server released the
      // round and answered with its generic text, so the round is sent again.
      if (textOf(answer).startsWith("Tool execution failed")) throw new Error(textOf(answer));
      return answer;
    });
    this.answered += 1;
    return result;
  }

  /** Every refusal so far, across the flows. */
  refusals(): Refusal[] {
    return this.flows.flatMap((flow) => flow.refusals);
  }

  async #persist<T>(flow: OnceFlow, send: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + FLOW_WITHIN_MS;
    for (;;) {
      let wait = RETRY_MS;
      try {
        return await answeredWithin(send(), ROUND_WITHIN_MS);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const data =
          error instanceof McpError ? (error.data as { reason?: string; retryAfter?: number }) : {};
        if (error instanceof McpError && error.code === -32602) throw new FlowEnded("refused", message);
        if (data?.reason === "round_outcome_unknown") throw new FlowEnded("outcome-unknown", message);
        const refusal = refusalOf(message, data?.reason);
        flow.refusals.push(refusal);
        flow.messages.push(message);
        if (refusal === "in-progress")
          wait = Math.max(RETRY_MS, Math.min(1000, (data?.retryAfter ?? 1) * 250));
        if (Date.now() > deadline)
          throw new Error(`a round was still refused after ${FLOW_WITHIN_MS} ms: ${message}`);
      }
      await delay(wait);
    }
  }
}

/**
 * A request that gets no answer within ROUND_WITHIN_MS is given up and sent again: a round must never
 * wait on a connection a fault left hanging, and every instance answers well within it otherwise.
 */
const ROUND_WITHIN_MS = 30_000;
const bounded: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: AbortSignal.timeout(ROUND_WITHIN_MS) });

/** `answer`, or a rejection once `ms` have passed: an approval page's sign-in is several requests. */
async function answeredWithin<T>(answer: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

function refusalOf(message: string, reason: string | undefined): Refusal {
  if (reason === "round_in_progress") return "in-progress";
  if (/^The once-store is unavailable/.test(message)) return "unavailable";
  if (/^The once-store did not confirm the round as durable/.test(message)) return "unconfirmed";
  return "other";
}
