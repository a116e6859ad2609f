import { createMessage, elicitForm, listRoots } from "../../protocol/input-required.js";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  InputRequest,
  ListRootsResult,
} from "../../protocol/schemas/input-required.js";
import type { Awaitable, McpContext } from "./context.js";
import { type ElicitAnswer, type ElicitationSchemaLike, toElicitationSchema } from "./elicitation-schema.js";

/**
 * Resolvers: a tool's named dependencies. Each one either computes a value or returns a question
 * (`ask.elicit`, `ask.sample`, `ask.listRoots`); the resolver engine asks the questions, keeps the
 * answers in the sealed request state and injects the values into the tool's handler.
 */

export interface ElicitQuestion<T> {
  readonly "~question": "elicit";
  readonly message: string;
  readonly schema: ElicitationSchemaLike;
  /** Type-only: the answer's type. */
  readonly "~answer"?: T;
}

export interface SampleQuestion {
  readonly "~question": "sample";
  readonly params: CreateMessageRequestParams;
}

export interface RootsQuestion {
  readonly "~question": "roots";
}

export type Question = ElicitQuestion<unknown> | SampleQuestion | RootsQuestion;

/** Only objects made by `ask.*` are questions, so no value a client sent can pose as one. */
const questions = new WeakSet<object>();

function question<Q extends Question>(value: Q): Q {
  questions.add(Object.freeze(value));
  return value;
}

export function isQuestion(value: unknown): value is Question {
  return typeof value === "object" && value !== null && questions.has(value);
}

export const ask = {
  /** A form for the user. The question's identity is its message and schema: keep both deterministic. */
  elicit<S extends ElicitationSchemaLike>(message: string, schema: S): ElicitQuestion<ElicitAnswer<S>> {
    return question({ "~question": "elicit", message, schema });
  },
  /** An LLM completion from the client; the result rides in the request state, so it is requested once. */
  sample(params: CreateMessageRequestParams): SampleQuestion {
    return question({ "~question": "sample", params });
  },
  /** The client's roots. */
  listRoots(): RootsQuestion {
    return question({ "~question": "roots" });
  },
};

/** The embedded request a question becomes on the wire. */
export function questionRequest(value: Question): InputRequest {
  switch (value["~question"]) {
    case "elicit":
      return elicitForm(value.message, toElicitationSchema(value.schema));
    case "sample":
      return createMessage(value.params);
    case "roots":
      return listRoots();
  }
}

/** How a declined or cancelled form reaches the handler. */
export type DeclineMode = "error" | "outcome";

export type ElicitationOutcome<T> =
  | { action: "accept"; content: T }
  | { action: "decline" }
  | { action: "cancel" };

/** The value a resolver's return becomes once every question in it is answered. */
export type Resolved<R, M extends DeclineMode> =
  R extends ElicitQuestion<infer T>
    ? M extends "outcome"
      ? ElicitationOutcome<T>
      : T
    : R extends SampleQuestion
      ? CreateMessageResult
      : R extends RootsQuestion
        ? ListRootsResult
        : R;

export interface Resolver<V, A = unknown> {
  /** What this resolver depends on, under the names it reads them by. */
  readonly deps: Readonly<Record<string, AnyResolver>>;
  readonly run: (input: Record<string, unknown> & ResolverCall<unknown>) => Awaitable<unknown>;
  readonly onDecline: DeclineMode;
  /** Type-only: the value it resolves to, and the tool arguments it reads. */
  readonly "~types"?: { value: V; args: (args: A) => void };
}

/** Every resolver is assignable to this: its arguments are contravariant. */
export type AnyResolver = Resolver<unknown, never>;

export type ResolverMap = Record<string, AnyResolver>;

export type ValueOf<R> = R extends Resolver<infer V, never> ? V : never;

/** The values a map of resolvers injects, by name. */
export type ResolvedValues<D> = { [K in keyof D]: ValueOf<D[K]> };

type ArgsOf<R> = R extends { "~types"?: { args: (args: infer A) => void } } ? A : unknown;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
/** The tool arguments a set of resolvers reads, together. */
export type ArgsOfAll<D> = [keyof D] extends [never] ? unknown : UnionToIntersection<ArgsOf<D[keyof D]>>;

export interface ResolverCall<A> {
  /** The tool's validated arguments. */
  readonly args: A;
  readonly ctx: McpContext;
}

export type ResolverInput<D, A> = ResolvedValues<D> & ResolverCall<A>;

export interface ResolverOptions<M extends DeclineMode> {
  /**
   * "error" (the default): a declined or cancelled form ends the call with a tool error.
   * "outcome": the handler receives `{ action }` and branches on it.
   */
  onDecline?: M;
}

const RESERVED = new Set(["args", "ctx"]);

export function resolver<R, A = unknown, M extends DeclineMode = "error">(
  compute: (input: ResolverCall<A>) => R,
  options?: ResolverOptions<M>,
): Resolver<Resolved<Awaited<R>, M>, A>;
export function resolver<D extends ResolverMap, R, A = unknown, M extends DeclineMode = "error">(
  deps: D,
  compute: (input: ResolverInput<D, A>) => R,
  options?: ResolverOptions<M>,
): Resolver<Resolved<Awaited<R>, M>, A & ArgsOfAll<D>>;
export function resolver(
  first: ResolverMap | ((input: never) => unknown),
  second?: ((input: never) => unknown) | ResolverOptions<DeclineMode>,
  third?: ResolverOptions<DeclineMode>,
): AnyResolver {
  const hasDeps = typeof first !== "function";
  const deps = hasDeps ? first : {};
  const compute = (hasDeps ? second : first) as (input: unknown) => unknown;
  const options = (hasDeps ? third : second) as ResolverOptions<DeclineMode> | undefined;
  if (typeof compute !== "function") throw new TypeError("resolver() needs a function that computes or asks");
  for (const name of Object.keys(deps)) {
    if (RESERVED.has(name)) {
      throw new TypeError(
        `A resolver dependency cannot be named '${name}': the resolver receives args and ctx itself; rename it`,
      );
    }
  }
  const onDecline = options?.onDecline ?? "error";
  if (onDecline !== "error" && onDecline !== "outcome") {
    throw new TypeError(`onDecline must be "error" or "outcome", not ${JSON.stringify(onDecline)}`);
  }
  const made: AnyResolver = { deps: Object.freeze({ ...deps }), run: (input) => compute(input), onDecline };
  return Object.freeze(made);
}
