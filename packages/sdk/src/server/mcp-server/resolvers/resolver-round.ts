/**
 * The resolver engine, as tools use it. A tool's resolvers are named and ordered once, when the tool
 * is registered (`buildResolverGraph`, resolver-graph.ts); every round then walks them from scratch,
 * dependencies first and each resolver at most once (`runResolverRound`, here). The tool body runs only
 * when nothing is left to ask.
 */
import { ErrorCode, McpError } from "../../../protocol/errors.js";
import { inputRequired } from "../../../protocol/input-required.js";
import type { Logger } from "../../../protocol/logger.js";
import type {
  InputRequest,
  InputRequiredResult,
  InputResponses,
} from "../../../protocol/schemas/input-required.js";
import { missingCapabilityFor } from "../../capability-gate.js";
import { resolverLayer } from "../../request-state-layers.js";
import type { McpContext } from "../context.js";
import { type AnswerOutcome, consumeResponse, resolvedValue, restoreOutcome } from "./resolver-answer.js";
import type { ResolverGraph, ResolverNode } from "./resolver-graph.js";
import { questionDigest, type RecordedOutcome, type ResolverState } from "./resolver-state.js";
import { type AnyResolver, isQuestion, type Question, questionRequest } from "./resolvers.js";

type Evaluation = { status: "resolved"; value: unknown } | { status: "pending" };

export interface RoundInput {
  args: unknown;
  ctx: McpContext;
  requestState: string | undefined;
  inputResponses: InputResponses | undefined;
  logger: Logger;
}

export type RoundOutcome =
  | { kind: "resolved"; values: Record<string, unknown> }
  | { kind: "input_required"; result: InputRequiredResult };

/** Settles every promise, then rethrows the first failure in list order, so errors are deterministic. */
async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const values: T[] = [];
  for (const outcome of settled) {
    if (outcome.status === "rejected") throw outcome.reason;
    values.push(outcome.value);
  }
  return values;
}

function capabilityNames(required: Record<string, unknown>): string {
  return Object.entries(required)
    .map(([name, value]) => {
      const sub = value && typeof value === "object" ? Object.keys(value) : [];
      return sub.length > 0 ? `${name}.${sub.join(", ")}` : name;
    })
    .join(" and ");
}

class Round {
  readonly #graph: ResolverGraph;
  readonly #input: RoundInput;
  readonly #state: ResolverState;
  readonly #memo = new Map<AnyResolver, Promise<Evaluation>>();
  readonly #pending = new Map<string, InputRequest>();
  readonly #persist: Record<string, RecordedOutcome> = {};
  /** Resolvers whose body ran this round. */
  readonly #evaluated = new Set<string>();

  constructor(graph: ResolverGraph, input: RoundInput) {
    this.#graph = graph;
    this.#input = input;
    this.#state = resolverLayer.read(input.requestState);
  }

  async run(): Promise<RoundOutcome> {
    const evaluations = await settleAll(this.#graph.top.map(([, resolver]) => this.#visit(resolver)));
    if (this.#pending.size === 0) {
      const values: Record<string, unknown> = {};
      for (const [index, [name]] of this.#graph.top.entries()) {
        values[name] = (evaluations[index] as { value: unknown }).value;
      }
      return { kind: "resolved", values };
    }
    return { kind: "input_required", result: this.#inputRequired() };
  }

  #inputRequired(): InputRequiredResult {
    const { order } = this.#graph;
    const keys = [...this.#pending.keys()].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const inputRequests: Record<string, InputRequest> = {};
    const asked: Record<string, string> = {};
    for (const key of keys) {
      const request = this.#pending.get(key) as InputRequest;
      inputRequests[key] = request;
      asked[key] = questionDigest(request);
    }
    // Answers to questions not reached this round (their dependency is being re-asked) stay pinned
    // to their digest and are checked again when reached; entries under unknown keys are dropped.
    for (const [key, outcome] of Object.entries(this.#state.outcomes)) {
      if (this.#persist[key] || !order.has(key) || this.#evaluated.has(key)) continue;
      this.#persist[key] = outcome;
    }
    return inputRequired({
      inputRequests,
      requestState: resolverLayer.write({ outcomes: this.#persist, asked }),
    });
  }

  #visit(resolver: AnyResolver): Promise<Evaluation> {
    let evaluation = this.#memo.get(resolver);
    if (!evaluation) {
      evaluation = this.#evaluate(resolver);
      this.#memo.set(resolver, evaluation);
    }
    return evaluation;
  }

  async #evaluate(resolver: AnyResolver): Promise<Evaluation> {
    const node = this.#graph.nodes.get(resolver) as ResolverNode;
    // Every dependency is visited even when one is pending, so independent questions share a round.
    const deps = await settleAll(node.deps.map(([, dep]) => this.#visit(dep)));
    if (deps.some((dep) => dep.status === "pending")) return { status: "pending" };
    const input: Record<string, unknown> = { args: this.#input.args, ctx: this.#input.ctx };
    for (const [index, [depName]] of node.deps.entries()) {
      input[depName] = (deps[index] as { value: unknown }).value;
    }
    this.#evaluated.add(node.name);
    const produced = await resolver.run(input as Parameters<AnyResolver["run"]>[0]);
    if (!isQuestion(produced)) return { status: "resolved", value: produced };
    return this.#answer(node.name, resolver, produced);
  }

  #answer(name: string, resolver: AnyResolver, question: Question): Evaluation {
    const request = questionRequest(question);
    const digest = questionDigest(request);

    const recorded = this.#state.outcomes[name];
    if (recorded && recorded.q === digest) {
      const restored = restoreOutcome(question, recorded);
      if (restored) {
        this.#persist[name] = recorded;
        return resolved(name, resolver, question, restored);
      }
    }

    const response = this.#input.inputResponses?.[name];
    if (response !== undefined) {
      if (this.#state.asked[name] === digest) {
        const outcome = consumeResponse(name, question, response);
        this.#persist[name] = { action: outcome.action, data: outcome.data, q: digest };
        return resolved(name, resolver, question, outcome);
      }
      this.#input.logger.info(
        { tool: this.#graph.tool, resolver: name },
        "ignoring an answer to a question that was not the one asked last round; asking again",
      );
    }

    const missing = missingCapabilityFor(request, this.#input.ctx.clientCapabilities);
    if (missing) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `Client did not declare the ${capabilityNames(missing)} capability required by resolver '${name}'`,
        { requiredCapabilities: missing },
      );
    }
    this.#pending.set(name, request);
    return { status: "pending" };
  }
}

function resolved(
  name: string,
  resolver: AnyResolver,
  question: Question,
  outcome: AnswerOutcome,
): Evaluation {
  return { status: "resolved", value: resolvedValue(name, resolver, question, outcome) };
}

/**
 * One round of a resolver tool: the values to inject, or the questions still to ask. A question is
 * answered from the state (an answer recorded for exactly that question), from this round's responses
 * (only if that exact question was asked last round), or it is asked; all independent questions of a
 * round are asked together, and one that depends on an unanswered one waits.
 */
export function runResolverRound(graph: ResolverGraph, input: RoundInput): Promise<RoundOutcome> {
  return new Round(graph, input).run();
}
