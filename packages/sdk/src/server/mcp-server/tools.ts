import type * as z from "zod";
import { isLegacyProtocolVersion } from "../../protocol/eras.js";
import { McpError } from "../../protocol/errors.js";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { Logger } from "../../protocol/logger.js";
import type { Icon } from "../../protocol/schemas/common.js";
import type { InputRequiredResult } from "../../protocol/schemas/input-required.js";
import type { CallToolParams } from "../../protocol/schemas/requests.js";
import type { Tool, ToolAnnotations } from "../../protocol/schemas/tools.js";
import type { RequestContext } from "../context.js";
import type { ResultObject } from "../middleware.js";
import { runRoundsInTask } from "../tasks/task-rounds.js";
import type { Tasks } from "../tasks/tasks.js";
import { type Awaitable, type InputContext, inputContext, type McpContext, mcpContext } from "./context.js";
import type { CanAsk, MixedChannels } from "./handler-rules.js";
import { InputResponseError } from "./input-responses.js";
import { checkOnce } from "./once-rounds.js";
import { ResolverFailure } from "./resolvers/resolver-failure.js";
import { buildResolverGraph, type ResolverGraph } from "./resolvers/resolver-graph.js";
import { runResolverRound } from "./resolvers/resolver-round.js";
import type { AnyResolver, ResolvedValues, Resolver } from "./resolvers/resolvers.js";
import { type CompiledSchema, compileSchema, type Infer, type SchemaLike } from "./schema.js";
import { type ToolReturn, toCallToolResult } from "./tool-result.js";

/** The input of a tool that declares none: an empty object. */
export type NoInput = z.ZodObject<{}>;

/** Resolvers a tool with these arguments can run: each may read only arguments the tool has. */
export type ResolverMapFor<Args> = Record<string, Resolver<unknown, Args>>;

export interface ToolConfig<I extends SchemaLike, O extends SchemaLike | undefined, R> {
  title?: string;
  description?: string;
  /** The arguments: a zod object or a JSON Schema with `type: "object"`. Validated before the handler runs. */
  input?: I;
  /** The structured result's schema; the handler then returns the structured value itself. */
  output?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * Named dependencies injected into the handler. A tool with resolvers lets them ask every question:
   * its handler cannot return an InputRequiredResult.
   */
  resolve?: R;
  /**
   * Rounds that run once: a round that carries requestState runs its handler at most once across the
   * fleet (claimed in McpServer's once-store first); a repeat gets the first outcome back, or the
   * invalid-requestState error once that has expired. See McpServerOptions.once.
   */
  once?: boolean;
  /**
   * The tasks extension may run it as a task (`optional`: whenever the client declared the extension;
   * `required`: only so, -32021 otherwise). The same handler serves both: in a task, each question it
   * asks (by resolver or by `inputRequired`) waits on the task's input_required status and tasks/update.
   * Needs McpServer's `tasks` option. With `once` (optional only), direct calls go through the
   * once-ledger; a task keeps its rounds on its record instead, and a re-run of its body (its worker
   * died) repeats its last round, so that round's effect needs a claim of its own.
   */
  task?: "optional" | "required";
}

/** A tool that drives its own rounds: it may return `inputRequired(...)` and reads the answers from `ctx`. */
export type HandBuiltToolHandler<I, O> = (
  args: Infer<I>,
  ctx: InputContext,
) => Awaitable<ToolReturn<O> | InputRequiredResult>;

/** A tool whose resolvers ask the questions; it receives their values and only ever completes. */
export type ResolverToolHandler<I, O, R> = (
  args: Infer<I>,
  resolved: ResolvedValues<R>,
  ctx: McpContext,
) => Awaitable<ToolReturn<O>>;

/** Whether a tool's config names resolvers: a `resolve` map with named entries. */
type HasResolvers<R> = [keyof R] extends [never] ? false : string extends keyof R ? false : true;

/** Which of the two a tool is follows from its config: a `resolve` map with named resolvers, or none. */
export type ToolHandler<I, O, R> =
  HasResolvers<R> extends true ? ResolverToolHandler<I, O, R> : HandBuiltToolHandler<I, O>;

/**
 * What `McpServer.tool` accepts before the channel rule is applied: a resolver tool's handler may be
 * written to return an InputRequiredResult here, so that ChannelRule, not a structural mismatch,
 * is what the compiler reports.
 */
export type ToolHandlerShape<I, O, R> =
  HasResolvers<R> extends true
    ? (
        args: Infer<I>,
        resolved: ResolvedValues<R>,
        ctx: McpContext,
      ) => Awaitable<ToolReturn<O> | InputRequiredResult>
    : HandBuiltToolHandler<I, O>;

/**
 * Intersected with a tool's handler: `unknown` (no change) unless the tool has resolvers and its
 * handler can return an InputRequiredResult; then it is MixedChannels, which no function is.
 */
export type ChannelRule<R, H> =
  HasResolvers<R> extends true ? (CanAsk<H> extends true ? MixedChannels : unknown) : unknown;

interface RegisteredTool {
  definition: Tool;
  input: CompiledSchema;
  output: CompiledSchema | undefined;
  graph: ResolverGraph | undefined;
  once: boolean;
  task: "optional" | "required" | undefined;
  handler: (...params: never[]) => unknown;
}

const MIXED_CHANNELS =
  "a call has one input_required channel, so the multi-round flow is driven either by resolvers or by the tool body, not both. Ask the question from a resolver, or drop the resolvers and build the InputRequiredResult by hand";

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #logger: Logger;
  readonly #tasks: Tasks | undefined;

  constructor(logger: Logger, tasks?: Tasks) {
    this.#logger = logger;
    this.#tasks = tasks;
    // Found by name on whichever instance runs the task: its body is the call, not a closure.
    tasks?.executeCallsWith((params, task) => {
      const tool = this.#tools.get(params.name);
      if (tool?.task === undefined) {
        throw McpError.invalidParams(
          `Tool '${params.name}' cannot run as a task on this server; every instance and worker of a fleet needs the same tools`,
        );
      }
      const { inputResponses: _answered, requestState: _state, ...call } = params;
      return runRoundsInTask(task, (round) =>
        this.#callRound(tool, round ? { ...call, ...round } : params, task.context),
      );
    });
  }

  register(
    name: string,
    config: ToolConfig<SchemaLike, SchemaLike | undefined, unknown>,
    handler: unknown,
  ): void {
    if (typeof name !== "string" || name.length === 0) throw new TypeError("A tool needs a non-empty name");
    if (this.#tools.has(name)) {
      throw new Error(`Tool '${name}' is already registered; remove it first or choose another name`);
    }
    if (typeof handler !== "function") throw new TypeError(`Tool '${name}' needs a handler function`);
    const once = checkOnce(config.once, `Tool '${name}'`);
    const task = this.#checkTask(name, config.task, once);
    const input = compileSchema(config.input ?? { type: "object", properties: {} }, {
      what: `tool '${name}' input`,
      objectRoot: true,
      io: "input",
    });
    const output =
      config.output === undefined
        ? undefined
        : compileSchema(config.output, { what: `tool '${name}' output`, objectRoot: false, io: "output" });
    const resolvers = (config.resolve ?? {}) as Record<string, AnyResolver>;
    const graph = Object.keys(resolvers).length > 0 ? buildResolverGraph(name, resolvers) : undefined;
    const definition: Tool = { name, inputSchema: input.jsonSchema as Tool["inputSchema"] };
    if (config.title !== undefined) definition.title = config.title;
    if (config.description !== undefined) definition.description = config.description;
    if (output) definition.outputSchema = output.jsonSchema;
    if (config.annotations !== undefined) definition.annotations = config.annotations;
    if (config.icons !== undefined) definition.icons = config.icons;
    if (config._meta !== undefined) definition._meta = config._meta;
    if (task !== undefined) definition.execution = { taskSupport: task };
    this.#tools.set(name, {
      definition,
      input,
      output,
      graph,
      once,
      task,
      handler: handler as RegisteredTool["handler"],
    });
  }

  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** Whether this call of the tool is answered with a task (then the once-ledger does not wrap it). */
  runsAsTask(name: string, request: Pick<RequestContext, "clientCapabilities" | "protocolVersion">): boolean {
    const task = this.#tools.get(name)?.task;
    // A 2025-era client cannot follow a task: the bridge carries the call's rounds over its session,
    // asking each question there, and answers the call once, so the body runs as a direct call.
    if (task === undefined || !this.#tasks || isLegacyProtocolVersion(request.protocolVersion)) return false;
    return task === "required" || this.#tasks.negotiated(request);
  }

  isOnce(name: string): boolean {
    return this.#tools.get(name)?.once === true;
  }

  definition(name: string): Tool | undefined {
    return this.#tools.get(name)?.definition;
  }

  /** Sorted by name, so every instance of a fleet lists the same tools in the same order. */
  list(): Tool[] {
    return [...this.#tools.values()]
      .map((tool) => tool.definition)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  #checkTask(name: string, task: unknown, once: boolean): "optional" | "required" | undefined {
    if (task === undefined) return undefined;
    if (task !== "optional" && task !== "required") {
      throw new TypeError(`Tool '${name}': task is "optional" or "required", not ${JSON.stringify(task)}`);
    }
    if (!this.#tasks) {
      throw new TypeError(
        `Tool '${name}' may run as a task, but this McpServer has no tasks: pass new McpServer(info, { tasks: new Tasks() })`,
      );
    }
    // Optional: direct calls go through the once-ledger, tasks through their own record.
    if (once && task === "required") {
      throw new TypeError(
        `Tool '${name}': a task-only tool runs no direct rounds for once to guard; drop once: true`,
      );
    }
    return task;
  }

  async call(params: CallToolParams, request: RequestContext): Promise<ResultObject> {
    const tool = this.#tools.get(params.name);
    if (!tool) {
      throw McpError.invalidParams(
        `Unknown tool: '${params.name}'; tools/list names the tools this server offers`,
      );
    }
    if (this.runsAsTask(params.name, request)) {
      const tasks = this.#tasks as Tasks;
      return tasks.startCall(request, params);
    }
    return this.#callRound(tool, params, request);
  }

  async #callRound(
    tool: RegisteredTool,
    params: CallToolParams,
    request: RequestContext,
  ): Promise<ResultObject> {
    const parsed = tool.input.parse(params.arguments ?? {});
    // A tool execution error, not a protocol error: the model reads it and can correct its arguments.
    if (!parsed.ok) {
      return toolError(`Invalid arguments for tool '${params.name}': ${parsed.problems.join("; ")}`);
    }
    if (tool.graph) return this.#callWithResolvers(tool, tool.graph, parsed.value, params, request);
    const handler = tool.handler as HandBuiltToolHandler<SchemaLike, SchemaLike>;
    let result: Awaited<ReturnType<typeof handler>>;
    try {
      result = await handler(parsed.value as Infer<SchemaLike>, inputContext(request, params));
    } catch (error) {
      // An unusable answer is the user's to fix, reported to the caller like any tool failure.
      if (error instanceof InputResponseError) return toolError(error.message);
      throw error;
    }
    if (isInputRequiredResult(result)) return result;
    return toCallToolResult(params.name, result, tool.output);
  }

  async #callWithResolvers(
    tool: RegisteredTool,
    graph: ResolverGraph,
    args: unknown,
    params: CallToolParams,
    request: RequestContext,
  ): Promise<ResultObject> {
    const ctx = mcpContext(request);
    let round: Awaited<ReturnType<typeof runResolverRound>>;
    try {
      round = await runResolverRound(graph, {
        args,
        ctx,
        requestState: params.requestState,
        inputResponses: params.inputResponses,
        logger: this.#logger,
      });
    } catch (error) {
      if (error instanceof ResolverFailure) return toolError(error.message);
      throw error;
    }
    if (round.kind === "input_required") return round.result;
    const handler = tool.handler as (args: unknown, resolved: unknown, ctx: McpContext) => Awaitable<unknown>;
    const result = await handler(args, round.values, ctx);
    if (isInputRequiredResult(result)) {
      this.#logger.warn({ tool: params.name }, "a resolver tool returned an InputRequiredResult");
      return toolError(
        `Tool '${params.name}' returned an InputRequiredResult but declares resolvers: ${MIXED_CHANNELS}`,
      );
    }
    return toCallToolResult(params.name, result, tool.output);
  }
}

function toolError(text: string): ResultObject {
  return { content: [{ type: "text", text }], isError: true };
}
