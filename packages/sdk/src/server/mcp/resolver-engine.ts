import { ErrorCode, McpError } from "../../protocol/errors.js";
import { inputRequired } from "../../protocol/input-required.js";
import type { Logger } from "../../protocol/logger.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type InputRequest,
  type InputRequiredResult,
  type InputResponse,
  type InputResponses,
  ListRootsResultSchema,
} from "../../protocol/schemas/input-required.js";
import { missingCapabilityFor } from "../capability-gate.js";
import type { McpContext } from "./context.js";
import { parseElicitContent } from "./elicitation-schema.js";
import {
  decodeResolverState,
  encodeResolverState,
  questionDigest,
  type RecordedOutcome,
  type ResolverState,
} from "./resolver-state.js";
import {
  type AnyResolver,
  isQuestion,
  type Question,
  questionRequest,
  type ResolverMap,
} from "./resolvers.js";

/**
 * The resolver engine. Every round it walks a tool's resolvers from scratch: dependencies first, each
 * resolver at most once. A question is answered from the state (an answer recorded for exactly that
 * question), from this round's responses (only if that exact question was asked last round), or it is
 * asked. All independent questions of a round are asked together; a question that depends on an
 * unanswered one waits. The tool body runs only when nothing is left to ask.
 */

interface Node {
  name: string;
  deps: readonly (readonly [string, AnyResolver])[];
}

export interface ResolverGraph {
  readonly tool: string;
  readonly top: readonly (readonly [string, AnyResolver])[];
  readonly nodes: ReadonlyMap<AnyResolver, Node>;
  /** Dependencies before dependants, in declaration order: the order questions are listed in. */
  readonly order: ReadonlyMap<string, number>;
}

/** A failure the user can act on; the tool answers with it as an error result. */
export class ResolverFailure extends Error {
  override readonly name = "ResolverFailure";
}

function isResolver(value: unknown): value is AnyResolver {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AnyResolver).run === "function" &&
    typeof (value as AnyResolver).deps === "object"
  );
}

/**
 * Names every resolver a tool reaches (its key in the tool's map, else its name where it is depended
 * on): the names are the wire keys, stable across processes. Refuses cycles and one name for two
 * different resolvers.
 */
export function buildResolverGraph(tool: string, map: ResolverMap): ResolverGraph {
  const nodes = new Map<AnyResolver, Node>();
  const owners = new Map<string, AnyResolver>();
  const order = new Map<string, number>();
  const claim = (name: string, resolver: AnyResolver): void => {
    const owner = owners.get(name);
    if (owner && owner !== resolver) {
      throw new TypeError(
        `Tool '${tool}' reaches two different resolvers named '${name}'; names are the keys of the questions on the wire, so give one of them another name`,
      );
    }
    owners.set(name, resolver);
  };
  const top = Object.entries(map).map(([name, resolver]) => {
    if (!isResolver(resolver)) {
      throw new TypeError(`Tool '${tool}': resolve.${name} is not a resolver; create it with resolver(...)`);
    }
    return [name, resolver] as const;
  });
  for (const [name, resolver] of top) {
    if (!nodes.has(resolver)) nodes.set(resolver, { name, deps: [] });
    claim(name, resolver);
  }
  const visiting = new Set<AnyResolver>();
  const visit = (name: string, resolver: AnyResolver): void => {
    const known = nodes.get(resolver);
    if (known && order.has(known.name)) return;
    if (visiting.has(resolver))
      throw new TypeError(`Tool '${tool}': resolver '${name}' has a cyclic dependency`);
    visiting.add(resolver);
    const node: Node = known ?? { name, deps: [] };
    if (!known) claim(name, resolver);
    nodes.set(resolver, node);
    const deps = Object.entries(resolver.deps).map(([depName, dep]) => {
      if (!isResolver(dep)) {
        throw new TypeError(`Tool '${tool}': dependency '${depName}' of '${node.name}' is not a resolver`);
      }
      return [depName, dep] as const;
    });
    node.deps = deps;
    for (const [depName, dep] of deps) visit(nodes.get(dep)?.name ?? depName, dep);
    visiting.delete(resolver);
    order.set(node.name, order.size);
  };
  for (const [name, resolver] of top) visit(name, resolver);
  return { tool, top, nodes, order };
}

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
    this.#state = decodeResolverState(input.requestState);
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
      requestState: encodeResolverState({ outcomes: this.#persist, asked }),
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
    const node = this.#graph.nodes.get(resolver) as Node;
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
      const restored = this.#restore(question, recorded);
      if (restored) {
        this.#persist[name] = recorded;
        return this.#apply(name, resolver, restored);
      }
    }

    const response = this.#input.inputResponses?.[name];
    if (response !== undefined) {
      if (this.#state.asked[name] === digest) {
        const outcome = this.#consume(name, question, response);
        this.#persist[name] = { action: outcome.action, data: outcome.data, q: digest };
        return this.#apply(name, resolver, outcome);
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

  /** A recorded outcome, if it still fits the live question; a forged or outdated one is re-asked. */
  #restore(question: Question, recorded: RecordedOutcome): Outcome | undefined {
    if (recorded.action !== "accept") {
      return question["~question"] === "elicit"
        ? { action: recorded.action, data: null, value: undefined }
        : undefined;
    }
    const parsed = parseAnswer(question, recorded.data);
    return parsed.ok ? { action: "accept", data: recorded.data, value: parsed.value } : undefined;
  }

  #consume(name: string, question: Question, response: InputResponse): Outcome {
    if (question["~question"] !== "elicit") {
      const parsed = parseAnswer(question, response);
      if (!parsed.ok) {
        const expected = question["~question"] === "sample" ? "a sampling result" : "a roots list";
        throw new ResolverFailure(
          `Resolver '${name}' received a response of the wrong kind (expected ${expected})`,
        );
      }
      return { action: "accept", data: response, value: parsed.value };
    }
    const elicit = ElicitResultSchema.safeParse(response);
    if (!elicit.success) throw new ResolverFailure(`Resolver '${name}' received a non-elicitation response`);
    const { action, content } = elicit.data;
    if (action !== "accept") return { action, data: null, value: undefined };
    if (content === undefined) {
      throw new ResolverFailure(`Resolver '${name}' received an accepted elicitation with no content`);
    }
    const parsed = parseElicitContent(question.schema, content);
    if (!parsed.ok) {
      throw new ResolverFailure(
        `The answer to resolver '${name}' does not match the requested schema (${parsed.problems.join("; ")})`,
      );
    }
    return { action: "accept", data: content, value: parsed.value };
  }

  #apply(name: string, resolver: AnyResolver, outcome: Outcome): Evaluation {
    if (resolver.onDecline === "outcome") {
      const value =
        outcome.action === "accept"
          ? { action: "accept", content: outcome.value }
          : { action: outcome.action };
      return { status: "resolved", value };
    }
    if (outcome.action !== "accept") {
      const what = outcome.action === "decline" ? "declined" : "cancelled";
      throw new ResolverFailure(
        `Resolver '${name}' could not resolve: the user ${what} the question. Call the tool again to be asked again`,
      );
    }
    return { status: "resolved", value: outcome.value };
  }
}

interface Outcome {
  action: RecordedOutcome["action"];
  data: unknown;
  value: unknown;
}

/** An accepted answer checked against the live question; the same check for fresh and recorded ones. */
function parseAnswer(question: Question, data: unknown): { ok: true; value: unknown } | { ok: false } {
  switch (question["~question"]) {
    case "elicit":
      return parseElicitContent(question.schema, data);
    case "sample": {
      const parsed = CreateMessageResultSchema.safeParse(data);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    }
    case "roots": {
      const parsed = ListRootsResultSchema.safeParse(data);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    }
  }
}

/** One round of a resolver tool: the values to inject, or the questions still to ask. */
export function runResolverRound(graph: ResolverGraph, input: RoundInput): Promise<RoundOutcome> {
  return new Round(graph, input).run();
}
