import { McpError } from "../../protocol/errors.js";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { Icon } from "../../protocol/schemas/common.js";
import type { CompleteParams } from "../../protocol/schemas/completion.js";
import type { InputRequiredResult } from "../../protocol/schemas/input-required.js";
import type { Prompt, PromptArgument, PromptMessage } from "../../protocol/schemas/prompts.js";
import type { GetPromptParams } from "../../protocol/schemas/requests.js";
import type { RequestContext } from "../context.js";
import type { ResultObject } from "../middleware.js";
import { type CacheHint, checkCacheHint } from "./cache-hints.js";
import {
  type ArgumentNames,
  type Completers,
  type CompleterTable,
  checkCompleters,
  complete,
} from "./completions.js";
import { type Awaitable, type InputContext, inputContext } from "./context.js";
import { InputResponseError } from "./input-responses.js";
import { checkOnce } from "./once-rounds.js";
import {
  type CompiledSchema,
  compileSchema,
  type Infer,
  type JsonSchema,
  type SchemaLike,
} from "./schema.js";

export interface PromptConfig<I extends SchemaLike> {
  title?: string;
  description?: string;
  /** The arguments (all strings on the wire): a zod object or a JSON Schema object. */
  input?: I;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * Rounds that run once: a round that carries requestState runs its handler at most once across the
   * fleet (claimed in McpServer's once-store first); a repeat gets the first outcome back, or the
   * invalid-requestState error once that has expired. See McpServerOptions.once.
   */
  once?: boolean;
  /** Suggested values for arguments, answered to `completion/complete` with a `ref/prompt`. */
  complete?: Completers<ArgumentNames<Infer<I>>>;
  /**
   * How long clients may reuse prompts/list while this prompt is in it: a list is only as fresh as
   * its least fresh entry. Overrides the server-wide `cache` for this prompt.
   */
  cache?: CacheHint;
}

/** What a prompt handler may return: text (one user message), messages, or the full body. */
export type PromptReturn =
  | string
  | PromptMessage
  | PromptMessage[]
  | { messages: PromptMessage[]; description?: string; _meta?: Record<string, unknown> };

/** Prompts may ask the user before rendering: return `inputRequired(...)` and read the answers from `ctx`. */
export type PromptHandler<I> = (
  args: Infer<I>,
  ctx: InputContext,
) => Awaitable<PromptReturn | InputRequiredResult>;

interface RegisteredPrompt {
  definition: Prompt;
  input: CompiledSchema;
  once: boolean;
  handler: PromptHandler<SchemaLike>;
  completers: CompleterTable | undefined;
  cache: CacheHint | undefined;
}

function argumentsOf(schema: JsonSchema): PromptArgument[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]) => {
    const argument: PromptArgument = { name, required: required.has(name) };
    if (typeof property.title === "string") argument.title = property.title;
    if (typeof property.description === "string") argument.description = property.description;
    return argument;
  });
}

function isMessage(value: unknown): value is PromptMessage {
  return typeof value === "object" && value !== null && "role" in value && "content" in value;
}

function toGetPromptResult(value: PromptReturn, description: string | undefined): ResultObject {
  let body: ResultObject;
  if (typeof value === "string")
    body = { messages: [{ role: "user", content: { type: "text", text: value } }] };
  else if (Array.isArray(value)) body = { messages: value };
  else if (isMessage(value)) body = { messages: [value] };
  else body = { ...value };
  if (body.description === undefined && description !== undefined) body.description = description;
  return body;
}

export class PromptRegistry {
  readonly #prompts = new Map<string, RegisteredPrompt>();

  register(name: string, config: PromptConfig<SchemaLike>, handler: unknown): void {
    if (typeof name !== "string" || name.length === 0) throw new TypeError("A prompt needs a non-empty name");
    if (this.#prompts.has(name)) {
      throw new Error(`Prompt '${name}' is already registered; remove it first or choose another name`);
    }
    if (typeof handler !== "function") throw new TypeError(`Prompt '${name}' needs a handler function`);
    const once = checkOnce(config.once, `Prompt '${name}'`);
    const input = compileSchema(config.input ?? { type: "object", properties: {} }, {
      what: `prompt '${name}' arguments`,
      objectRoot: true,
      io: "input",
    });
    const definition: Prompt = { name };
    if (config.title !== undefined) definition.title = config.title;
    if (config.description !== undefined) definition.description = config.description;
    const args = argumentsOf(input.jsonSchema);
    if (args.length > 0) definition.arguments = args;
    if (config.icons !== undefined) definition.icons = config.icons;
    if (config._meta !== undefined) definition._meta = config._meta;
    const completers = checkCompleters(
      config.complete,
      args.map((argument) => argument.name),
      `Prompt '${name}'`,
    );
    const cache = checkCacheHint(config.cache, `Prompt '${name}'`);
    this.#prompts.set(name, {
      definition,
      input,
      once,
      handler: handler as PromptHandler<SchemaLike>,
      completers,
      cache,
    });
  }

  remove(name: string): boolean {
    return this.#prompts.delete(name);
  }

  isOnce(name: string): boolean {
    return this.#prompts.get(name)?.once === true;
  }

  list(): Prompt[] {
    return [...this.#prompts.values()]
      .map((prompt) => prompt.definition)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The cache hints of the listed prompts, for the list's own hint. */
  cacheHints(): (CacheHint | undefined)[] {
    return [...this.#prompts.values()].map((prompt) => prompt.cache);
  }

  complete(params: CompleteParams, name: string): ReturnType<typeof complete> {
    const prompt = this.#find(name);
    const names = (prompt.definition.arguments ?? []).map((argument) => argument.name);
    return complete(prompt.completers, names, params, `Prompt '${name}'`);
  }

  #find(name: string): RegisteredPrompt {
    const prompt = this.#prompts.get(name);
    if (!prompt) {
      throw McpError.invalidParams(
        `Unknown prompt: '${name}'; prompts/list names the prompts this server offers`,
      );
    }
    return prompt;
  }

  async get(params: GetPromptParams, request: RequestContext): Promise<ResultObject> {
    const prompt = this.#find(params.name);
    // Validated on every round: a retry carries the arguments again.
    const parsed = prompt.input.parse(params.arguments ?? {});
    if (!parsed.ok) {
      throw McpError.invalidParams(
        `Invalid arguments for prompt '${params.name}': ${parsed.problems.join("; ")}`,
      );
    }
    let result: PromptReturn | InputRequiredResult;
    try {
      result = await prompt.handler(parsed.value as Infer<SchemaLike>, inputContext(request, params));
    } catch (error) {
      if (error instanceof InputResponseError) throw McpError.invalidParams(error.message);
      throw error;
    }
    if (isInputRequiredResult(result)) return result;
    return toGetPromptResult(result as PromptReturn, prompt.definition.description);
  }
}
