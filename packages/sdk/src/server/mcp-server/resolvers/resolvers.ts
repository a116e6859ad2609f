import { createMessage, elicitForm, elicitUrl, listRoots } from "../../../protocol/input-required.js";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  InputRequest,
  ListRootsResult,
} from "../../../protocol/schemas/input-required.js";
import type { Awaitable, McpContext } from "../context.js";
import { type ElicitAnswer, type ElicitationSchemaLike, toElicitationSchema } from "../elicitation-schema.js";
import { ResolverFailure } from "./resolver-failure.js";

/**
 * Resolvers: a tool's named dependencies. Each one either computes a value or returns a question
 * (`ask.elicit`, `ask.elicitUrl`, `ask.sample`, `ask.listRoots`); the resolver engine asks the questions, keeps the
 * answers in the sealed request state and injects the values into the tool's handler.
 */

export interface ElicitQuestion<T> {
  readonly "~question": "elicit";
  readonly message: string;
  readonly schema: ElicitationSchemaLike;
  /** Type-only: the answer's type. */
  readonly "~answer"?: T;
}

export interface ElicitUrlQuestion {
  readonly "~question": "elicitUrl";
  readonly message: string;
  readonly url: string;
}

export interface SampleQuestion {
  readonly "~question": "sample";
  readonly params: CreateMessageRequestParams;
}

export interface RootsQuestion {
  readonly "~question": "roots";
}

export type Question = ElicitQuestion<unknown> | ElicitUrlQuestion | SampleQuestion | RootsQuestion;

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
  /**
   * A form for the user. The question's identity is its message and schema: keep both deterministic.
   * A schema that is no flat form (a nested object, a union of types) is refused here, where it is
   * written, and the tool answers with why rather than a bare failure.
   */
  elicit<S extends ElicitationSchemaLike>(message: string, schema: S): ElicitQuestion<ElicitAnswer<S>> {
    try {
      toElicitationSchema(schema);
    } catch (error) {
      throw new ResolverFailure(
        `ask.elicit(${JSON.stringify(message)}) cannot be asked as a form: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return question({ "~question": "elicit", message, schema });
  },
  /**
   * Sends the user to a web page (a sign-in, a payment, a consent screen): whatever is entered there
   * stays between the user and that page, never in the client. The answer only says whether the user
   * agreed to open it, not that they finished there: the page's own backend records that. A
   * 2025-era session gets the `elicitationId` its wire requires, made up for it by the bridge.
   */
  elicitUrl(message: string, url: string | URL): ElicitUrlQuestion {
    return question({ "~question": "elicitUrl", message, url: checkedPageUrl(message, url) });
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

/** Clients open the URL in a browser, so only a web page's address can be one. */
function checkedPageUrl(message: string, url: string | URL): string {
  if (typeof message !== "string" || message.length === 0) {
    throw new TypeError("ask.elicitUrl needs a message telling the user why they should open the page");
  }
  const text = url instanceof URL ? url.href : url;
  const parsed = typeof text === "string" && URL.canParse(text) ? new URL(text) : undefined;
  if (parsed?.protocol !== "https:" && parsed?.protocol !== "http:") {
    throw new TypeError(
      `ask.elicitUrl needs an absolute http(s) URL for the user to open, not ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/** The embedded request a question becomes on the wire. */
export function questionRequest(value: Question): InputRequest {
  switch (value["~question"]) {
    case "elicit":
      return elicitForm(value.message, toElicitationSchema(value.schema));
    case "elicitUrl":
      return elicitUrl(value.message, value.url);
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

/** A URL-mode answer: accepting means the user agreed to open the page, not that they finished there. */
export type UrlElicitationOutcome = { action: "accept" } | { action: "decline" } | { action: "cancel" };

/** The value a resolver's return becomes once every question in it is answered. */
export type Resolved<R, M extends DeclineMode> = R extends ElicitUrlQuestion
  ? M extends "outcome"
    ? UrlElicitationOutcome
    : { action: "accept" }
  : R extends ElicitQuestion<infer T>
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

/**
 * The arguments one resolver reads, or never when it reads none: `unknown` would absorb the others in the
 * union below (`unknown | { service: string }` is `unknown`), so a resolver that reads no arguments
 * would erase what its siblings need.
 */
type ArgsNeeded<R> = R extends { "~types"?: { args: (args: infer A) => void } }
  ? unknown extends A
    ? never
    : A
  : never;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
/** The tool arguments a set of resolvers reads, together. */
export type ArgsOfAll<D> = [ArgsNeeded<D[keyof D]>] extends [never]
  ? unknown
  : UnionToIntersection<ArgsNeeded<D[keyof D]>>;

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
