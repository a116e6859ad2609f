import { McpError } from "../../protocol/errors.js";
import type { CompleteParams } from "../../protocol/schemas/completion.js";
import type { Awaitable } from "./context.js";

/** The most values one `completion/complete` result may carry. */
export const MAX_COMPLETION_VALUES = 100;

/** Suggestions: the values alone, or with how many there are in all. */
export type CompletionReturn =
  | readonly string[]
  | { values: readonly string[]; total?: number; hasMore?: boolean };

/**
 * Suggests values for one argument from what the user has typed so far (`value`), given the other
 * arguments the user has already filled in (`context.arguments`; each may be absent).
 */
export type Completer<Others extends string = string> = (
  value: string,
  context: { arguments: Partial<Record<Others, string>> },
) => Awaitable<CompletionReturn>;

/** Completers by argument (prompt) or variable (resource template) name: each names only real ones. */
export type Completers<Names extends string> = string extends Names
  ? Record<string, Completer>
  : { [K in Names]?: Completer<Exclude<Names, K>> };

/** The argument names of a prompt's schema. */
export type ArgumentNames<A> = keyof A & string;

type AnyCompleter = Completer<string>;
export type CompleterTable = Readonly<Record<string, AnyCompleter>>;

/** Checks a `complete` option at registration, so a misspelt name fails there rather than at runtime. */
export function checkCompleters(
  value: unknown,
  names: readonly string[],
  what: string,
): CompleterTable | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${what}: complete must be an object of functions, keyed by argument name`);
  }
  const table: Record<string, AnyCompleter> = {};
  for (const [name, completer] of Object.entries(value)) {
    if (!names.includes(name)) {
      const known = names.length > 0 ? names.map((n) => `'${n}'`).join(", ") : "none";
      throw new TypeError(`${what}: complete names '${name}', which is not one of its arguments (${known})`);
    }
    if (typeof completer !== "function") {
      throw new TypeError(`${what}: complete.${name} must be a function returning suggested values`);
    }
    table[name] = completer as AnyCompleter;
  }
  return Object.freeze(table);
}

type CompletionBody = { completion: { values: string[]; total?: number; hasMore?: boolean } };

/** The spec caps a result at 100 values: more are cut, and the result says there were more. */
function toCompletion(returned: CompletionReturn, what: string): CompletionBody {
  const body = Array.isArray(returned) ? { values: returned as readonly string[] } : returned;
  const values = (body as { values?: unknown }).values;
  if (!Array.isArray(values) || values.some((v) => typeof v !== "string")) {
    throw new TypeError(`${what}: a completer must return strings, or { values: strings, total?, hasMore? }`);
  }
  const { total, hasMore } = body as { total?: number; hasMore?: boolean };
  const cut = values.length > MAX_COMPLETION_VALUES;
  const completion: CompletionBody["completion"] = { values: values.slice(0, MAX_COMPLETION_VALUES) };
  if (total !== undefined) completion.total = total;
  else if (cut) completion.total = values.length;
  if (hasMore !== undefined) completion.hasMore = hasMore;
  else if (cut) completion.hasMore = true;
  return { completion };
}

/**
 * Answers `completion/complete` for one prompt or template. An argument it does not have is the
 * client's error (-32602); one it has without a completer simply has no suggestions.
 */
export async function complete(
  completers: CompleterTable | undefined,
  names: readonly string[],
  params: CompleteParams,
  what: string,
): Promise<CompletionBody> {
  const { name, value } = params.argument;
  if (!names.includes(name)) {
    throw McpError.invalidParams(
      `${what} has no argument '${name}'; complete one of: ${names.join(", ") || "(it has none)"}`,
    );
  }
  const completer = completers?.[name];
  if (!completer) return { completion: { values: [] } };
  const { [name]: _current, ...others } = params.context?.arguments ?? {};
  return toCompletion(await completer(value, { arguments: others }), what);
}
