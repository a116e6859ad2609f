import { ErrorCode, McpError } from "../protocol/errors.js";
import {
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  resultResponse,
} from "../protocol/jsonrpc.js";
import { describeError, type Logger, stackOf, stderrLogger } from "../protocol/logger.js";
import { CLIENT_REQUESTS, type ClientRequestMethod } from "../protocol/methods.js";
import { type AbortSource, RequestAbort } from "../protocol/request-abort.js";
import type { ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation } from "../protocol/schemas/common.js";
import { type RequestMeta, RequestMetaSchema } from "../protocol/schemas/envelope.js";
import { NotificationMethod } from "../protocol/schemas/notifications.js";
import {
  type ListenParams,
  type RequestMethod,
  RequestParamsAfterEnvelope,
  RequestParamsByMethod,
} from "../protocol/schemas/requests.js";
import type { Tool } from "../protocol/schemas/tools.js";
import { SKILLS_EXTENSION } from "../protocol/skills.js";
import type { TelemetryOption } from "../protocol/telemetry/telemetry-options.js";
import { META, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.js";
import { firstIssue } from "../protocol/zod-issues.js";
import type { AuthInfo } from "./auth-info.js";
import { type CachePolicy, withCachePolicy } from "./cache-policy.js";
import {
  createRequestContext,
  type NotificationSink,
  type RequestContext,
  type TransportInfo,
} from "./context.js";
import { InProcessNotificationBus } from "./fleet/in-process-notification-bus.js";
import type { NotificationBus } from "./fleet/notification-bus.js";
import type { Handlers } from "./handlers.js";
import { type Middleware, type ResultObject, runMiddleware } from "./middleware.js";
import { checkParamsLimits, type ParamsLimits } from "./params-limits.js";
import { checkedResult } from "./result-checks.js";
import { honouredFilter, type SubscriptionLimits, SubscriptionRegistry } from "./subscriptions.js";
import type { Tasks } from "./tasks/tasks.js";
import { ServerTelemetry } from "./telemetry/server-telemetry.js";
import { ToolDirectory } from "./tool-directory.js";
import { ToolError } from "./tool-error.js";
import {
  type LegacyOptions,
  type LegacySessionFacts,
  sessionMeta,
  type UnenvelopedEra,
} from "./unenveloped-era.js";

export interface ServerOptions {
  instructions?: string;
  /** Merged over the capabilities derived from the registered handlers. */
  capabilities?: ServerCapabilities;
  /** Defaults for cacheable results that do not set their own `ttlMs`/`cacheScope`. */
  cache?: Partial<CachePolicy>;
  logger?: Logger;
  /**
   * 2025-era clients (`initialize`, sessions, server-to-client requests) on the same endpoint: served
   * by default; `false` answers their `initialize` with -32022 instead.
   */
  legacy?: boolean | LegacyOptions;
  /**
   * Sends a tool handler's exception text to the client as its `isError` text. Default false: the
   * client gets "Tool execution failed" and the request id, the log gets the detail, since an
   * exception can hold internals. Throw a ToolError for a message meant for the client either way.
   */
  exposeErrors?: boolean;
  /** Depth and size allowed for `arguments` and `inputResponses`; defaults 64 levels and 4 MiB. */
  paramsLimits?: ParamsLimits;
  /**
   * Carries list changes and resource updates to every instance of a fleet (a RedisNotificationBus
   * from `@roundtrip/sdk/redis`). Default: this process only.
   */
  bus?: NotificationBus;
  /**
   * `subscriptions/listen` streams: at most 16 open per principal on this instance, each ending with
   * its result after 10 idle minutes or 1 hour in all, unless set otherwise here.
   */
  subscriptions?: SubscriptionLimits;
  /** The tasks extension: advertised, and tasks/get, tasks/update and tasks/cancel answered by it. */
  tasks?: Tasks;
  /**
   * Spans and metrics per the OpenTelemetry MCP conventions (docs/observability.md): on by default,
   * through the providers the application registered; `false` turns them off.
   */
  telemetry?: TelemetryOption;
}

/** Hears what the server announces to every connection, and its close: how legacy sessions get them. */
export interface BroadcastListener {
  notify(method: string, params: Record<string, unknown> | undefined): void;
  close(): void;
}

export interface HandleOptions {
  /** Cancels the request; a RequestAbort makes the handler's AbortSignal only if it reads one. */
  signal?: AbortSource;
  auth?: AuthInfo;
  notify?: NotificationSink;
  transport?: TransportInfo;
  /**
   * Transport checks that run after the envelope is read and before the version check (on HTTP, the
   * header/body agreement), in the order the reference implementations use.
   */
  checkTransport?: (request: JsonRpcRequest, meta: RequestMeta) => void | Promise<void>;
  /**
   * The transport's check of a tools/call against the called tool's definition (on HTTP, the
   * `Mcp-Param-*` headers), run once dispatch has found the method's handler and the tool, before any
   * middleware or handler. Not run for a tool the server does not know.
   */
  checkToolCall?: (tool: Tool, args: Record<string, unknown> | undefined) => void;
  /**
   * A 2025-era session's request: its RequestMeta is built from the session (no envelope, version or
   * header checks), and everything after that is the modern path.
   */
  legacy?: LegacySessionFacts;
}

export interface HandledResponse {
  message: JsonRpcResponse;
  /** True when the request was refused before any handler or middleware ran. */
  refusedBeforeDispatch: boolean;
}

type MethodEntry = { handler: keyof Handlers; capability: keyof ServerCapabilities };
/** The methods a Server dispatches to a handler, read from the method table (a wrong name is a type error). */
const HANDLED_METHODS: Readonly<Record<string, MethodEntry>> = Object.fromEntries(
  (Object.keys(CLIENT_REQUESTS) as ClientRequestMethod[]).flatMap((method) => {
    const { handler, capability } = CLIENT_REQUESTS[method];
    return handler === null || capability === null ? [] : [[method, { handler, capability }]];
  }),
);

/** The skills extension's declaration; its settings sit inline under its identifier. */
function skillsExtension(h: Handlers): NonNullable<ServerCapabilities["extensions"]> {
  return { [SKILLS_EXTENSION]: h.readResourceDirectory ? { directoryRead: true } : {} };
}

class RefusedBeforeDispatch extends McpError {}

function refuse(error: McpError): RefusedBeforeDispatch {
  return new RefusedBeforeDispatch(error.code, error.message, error.data);
}

/**
 * `"requestState": null` (or a null `inputResponses`) means absent, as the reference SDK reads it.
 * Read here only, before the first middleware, so the request-state boundary and every handler see
 * the field absent.
 */
function withoutNullRetryFields(params: Record<string, unknown>): Record<string, unknown> {
  if (params.requestState !== null && params.inputResponses !== null) return params;
  const { requestState, inputResponses, ...rest } = params;
  return {
    ...rest,
    ...(requestState === null ? {} : { requestState }),
    ...(inputResponses === null ? {} : { inputResponses }),
  };
}

/**
 * The low-level MCP 2026-07-28 server: one instance serves every request, with no per-connection
 * state. Handlers may answer the three carrier methods with an InputRequiredResult; nothing is sealed
 * until the request-state boundary middleware is added with `use`.
 */
export class Server {
  readonly info: Implementation;
  readonly logger: Logger;
  readonly #options: ServerOptions;
  readonly #handlers: Handlers = {};
  readonly #middleware: Middleware[] = [];
  readonly #subscriptions: SubscriptionRegistry;
  readonly #broadcast = new Set<BroadcastListener>();
  readonly #era: UnenvelopedEra | undefined;
  readonly #bus: NotificationBus;
  readonly #unsubscribe: () => void;
  readonly #tools = new ToolDirectory();
  readonly #telemetry: ServerTelemetry;
  #capabilities: ServerCapabilities | undefined;

  /**
   * `composeEra` brings in the 2025 era, given the `legacy` option; the Server that
   * `@roundtrip/sdk/server` exports passes it (see UnenvelopedEra). Without it, this server and its
   * transports serve 2026-07-28 only.
   */
  constructor(info: Implementation, options: ServerOptions = {}, composeEra?: EraComposer) {
    this.info = info;
    this.#options = options;
    this.logger = options.logger ?? stderrLogger;
    this.#era = composeEra?.(this, options.legacy);
    this.#subscriptions = new SubscriptionRegistry(options.subscriptions);
    this.#telemetry = new ServerTelemetry(options.telemetry);
    this.#bus = options.bus ?? new InProcessNotificationBus();
    options.tasks?.announceWith((method, params) => this.#announce(method, params));
    this.#unsubscribe = this.#bus.subscribe((event) => {
      if (event.type === "notification") this.#deliver(event.method, event.params);
    });
  }

  /** Where this server's broadcasts travel, to every instance that shares it. */
  get bus(): NotificationBus {
    return this.#bus;
  }

  /**
   * Spans and metrics, for what the 2025 era serves without dispatch (initialize, a session's own
   * methods, the questions it puts to its client).
   * @internal
   */
  get telemetry(): ServerTelemetry {
    return this.#telemetry;
  }

  /** The 2025 era its transports hand unenveloped traffic to; undefined when that era is switched off. */
  get legacy(): UnenvelopedEra | undefined {
    return this.#era;
  }

  get instructions(): string | undefined {
    return this.#options.instructions;
  }

  /** Registers a listener for what the server announces; returns the function that removes it. */
  addBroadcastListener(listener: BroadcastListener): () => void {
    this.#broadcast.add(listener);
    return () => this.#broadcast.delete(listener);
  }

  /** A change made here must never fail the request that made it: a bus outage is only logged. */
  #announce(method: string, params?: Record<string, unknown>): void {
    this.#bus
      .publish({ type: "notification", method, ...(params ? { params } : {}) })
      .catch((error: unknown) => {
        this.logger.error(
          { notification: method, ...describeError(error) },
          "the other instances did not hear this notification: the notification bus is unavailable (check that Redis is reachable); listeners on this instance got it",
        );
      });
  }

  #deliver(method: string, params: Record<string, unknown> | undefined): void {
    // Another instance changed its tools: this one's list may be stale too.
    if (method === NotificationMethod.toolsListChanged) this.#tools.forget();
    this.#subscriptions.deliver(method, params);
    for (const listener of this.#broadcast) listener.notify(method, params);
  }

  get name(): string {
    return this.info.name;
  }

  /** Adds middleware; the first added runs outermost. */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  onListTools(handler: NonNullable<Handlers["listTools"]>): this {
    return this.#set("listTools", handler);
  }
  onCallTool(handler: NonNullable<Handlers["callTool"]>): this {
    return this.#set("callTool", handler);
  }
  onListPrompts(handler: NonNullable<Handlers["listPrompts"]>): this {
    return this.#set("listPrompts", handler);
  }
  onGetPrompt(handler: NonNullable<Handlers["getPrompt"]>): this {
    return this.#set("getPrompt", handler);
  }
  onListResources(handler: NonNullable<Handlers["listResources"]>): this {
    return this.#set("listResources", handler);
  }
  onListResourceTemplates(handler: NonNullable<Handlers["listResourceTemplates"]>): this {
    return this.#set("listResourceTemplates", handler);
  }
  onReadResource(handler: NonNullable<Handlers["readResource"]>): this {
    return this.#set("readResource", handler);
  }
  onComplete(handler: NonNullable<Handlers["complete"]>): this {
    return this.#set("complete", handler);
  }
  /** Serving skills (with onGetSkill) declares the skills extension; skill files are read as resources. */
  onListSkills(handler: NonNullable<Handlers["listSkills"]>): this {
    return this.#set("listSkills", handler);
  }
  onGetSkill(handler: NonNullable<Handlers["getSkill"]>): this {
    return this.#set("getSkill", handler);
  }
  /** Declares the skills extension's `directoryRead`. */
  onReadResourceDirectory(handler: NonNullable<Handlers["readResourceDirectory"]>): this {
    return this.#set("readResourceDirectory", handler);
  }

  /**
   * Where a tools/call finds the called tool's definition for the transport's checks (its `Mcp-Param-*`
   * headers), without running a handler; McpServer points it at its registered tools. Without it, the
   * server uses what its tools/list answered, reading the list itself when it has not listed the tool.
   */
  describeTools(describe: (name: string) => Tool | undefined): this {
    this.#tools.describeWith(describe);
    return this;
  }

  #set<K extends keyof Handlers>(key: K, handler: Handlers[K]): this {
    this.#handlers[key] = handler;
    this.#capabilities = undefined;
    if (key === "listTools") this.#tools.forget();
    return this;
  }

  /** What `server/discover` advertises: derived from the handlers, then the configured overrides. */
  get capabilities(): ServerCapabilities {
    if (this.#capabilities) return this.#capabilities;
    const h = this.#handlers;
    const derived: ServerCapabilities = { logging: {} };
    if (h.listTools || h.callTool) derived.tools = { listChanged: true };
    if (h.listPrompts || h.getPrompt) derived.prompts = { listChanged: true };
    if (h.listResources || h.listResourceTemplates || h.readResource) {
      derived.resources = { subscribe: true, listChanged: true };
    }
    if (h.complete) derived.completions = {};
    const extensions = {
      ...(h.listSkills || h.getSkill || h.readResourceDirectory ? skillsExtension(h) : {}),
      ...this.#options.tasks?.capability,
    };
    if (Object.keys(extensions).length > 0) derived.extensions = extensions;
    this.#capabilities = { ...derived, ...this.#options.capabilities };
    return this.#capabilities;
  }

  notifyToolsListChanged(): void {
    this.#tools.forget();
    this.#announce(NotificationMethod.toolsListChanged);
  }
  notifyPromptsListChanged(): void {
    this.#announce(NotificationMethod.promptsListChanged);
  }
  notifyResourcesListChanged(): void {
    this.#announce(NotificationMethod.resourcesListChanged);
  }
  notifyResourceUpdated(uri: string): void {
    this.#announce(NotificationMethod.resourceUpdated, { uri });
  }

  /** Ends every open subscription stream with its final result. */
  close(): void {
    this.#unsubscribe();
    this.#subscriptions.closeAll();
    for (const listener of [...this.#broadcast]) listener.close();
  }

  /** Serves one JSON-RPC request and never throws: every failure becomes an error response. */
  handleRequest(request: JsonRpcRequest, options: HandleOptions = {}): Promise<HandledResponse> {
    return this.#telemetry.observe(request, options, () => this.#handle(request, options));
  }

  async #handle(request: JsonRpcRequest, options: HandleOptions): Promise<HandledResponse> {
    try {
      const result = await this.#dispatch(request, options);
      return { message: resultResponse(request.id, result), refusedBeforeDispatch: false };
    } catch (error) {
      if (error instanceof McpError) {
        return {
          message: errorResponse(request.id, error.toJSON()),
          refusedBeforeDispatch: error instanceof RefusedBeforeDispatch,
        };
      }
      this.logger.error({ method: request.method, ...describeError(error) }, "request failed");
      const stack = stackOf(error);
      if (stack !== undefined) this.logger.debug({ method: request.method, stack }, "request failure stack");
      return {
        message: errorResponse(request.id, McpError.internal().toJSON()),
        refusedBeforeDispatch: false,
      };
    }
  }

  async #dispatch(request: JsonRpcRequest, options: HandleOptions): Promise<ResultObject> {
    const { method } = request;
    const params = request.params ?? {};
    if (options.legacy) {
      if (method === "server/discover" || method === "subscriptions/listen") {
        throw refuse(McpError.methodNotFound(method));
      }
      const meta = sessionMeta(options.legacy, params);
      return this.#dispatchCall(request, { ...params, _meta: meta }, meta, options);
    }
    // Only a legacy client's opening (no modern envelope) learns which versions to use instead; an
    // `initialize` carrying the 2026-07-28 envelope is a modern request for a removed method (-32601).
    if (method === "initialize" && !RequestMetaSchema.safeParse(params._meta).success) {
      if (this.#era) {
        throw refuse(
          McpError.invalidRequest(
            "initialize opens a 2025-era session, which a transport keeps: connect over Streamable HTTP (createNodeHandler) or stdio (serveStdio)",
          ),
        );
      }
      const requested = typeof params.protocolVersion === "string" ? params.protocolVersion : "unknown";
      throw refuse(
        new McpError(
          ErrorCode.UnsupportedProtocolVersion,
          `Unsupported protocol version: this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")} only, which has no initialize; send server/discover or the request itself with the per-request _meta envelope`,
          { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested },
        ),
      );
    }
    const meta = this.#readEnvelope(params);
    await options.checkTransport?.(request, meta);
    const version = meta[META.protocolVersion];
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw refuse(McpError.unsupportedVersion(version, SUPPORTED_PROTOCOL_VERSIONS));
    }
    if (method === "server/discover") {
      return this.#withServerInfo(withCachePolicy(method, this.#discover(), this.#options.cache));
    }
    if (method === "subscriptions/listen") {
      return this.#withServerInfo(await this.#listen(this.#context(request, meta, options), params));
    }
    if (this.#options.tasks?.serves(method)) {
      const context = this.#context(request, meta, options);
      return this.#withServerInfo(await this.#options.tasks.serve(method, params, context));
    }
    return this.#dispatchCall(request, params, meta, options);
  }

  #context(request: Pick<JsonRpcRequest, "id" | "method">, meta: RequestMeta, options: HandleOptions) {
    return createRequestContext({
      requestId: request.id,
      method: request.method,
      meta,
      signal: options.signal ?? new RequestAbort(),
      auth: options.auth,
      transport: options.transport ?? { kind: "memory" },
      sink: options.notify,
    });
  }

  /** The handled methods, on both eras: `params._meta` is a checked envelope by now. */
  async #dispatchCall(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    meta: RequestMeta,
    options: HandleOptions,
  ): Promise<ResultObject> {
    const { method } = request;
    const context = this.#context(request, meta, options);
    // Own entries only: a method named `constructor` or `toString` is unknown, not inherited.
    const entry = Object.hasOwn(HANDLED_METHODS, method) ? HANDLED_METHODS[method] : undefined;
    const handler = entry ? this.#handlers[entry.handler] : undefined;
    if (!entry || !handler || !this.capabilities[entry.capability]) {
      throw refuse(McpError.methodNotFound(method));
    }
    const tooLarge = checkParamsLimits(params, this.#options.paramsLimits);
    if (tooLarge) throw refuse(tooLarge);
    if (method === "tools/call" && options.checkToolCall && typeof params.name === "string") {
      const tool = await this.#tools.find(params.name, this.#toolPageReader(request, meta, options));
      if (tool) options.checkToolCall(tool, params.arguments as Record<string, unknown> | undefined);
    }
    const mwRequest = { method, params: withoutNullRetryFields(params), context };
    const result = await runMiddleware(this.#middleware, mwRequest, () =>
      this.#invoke(entry.handler, mwRequest.params, context, params._meta),
    );
    return this.#withServerInfo(result);
  }

  #readEnvelope(params: Record<string, unknown>): RequestMeta {
    const parsed = RequestMetaSchema.safeParse(params._meta);
    if (parsed.success) return parsed.data;
    const missing =
      params._meta === undefined ? "params._meta is missing" : `params._meta.${firstIssue(parsed.error)}`;
    throw refuse(
      McpError.invalidParams(
        `Invalid request envelope: ${missing}; every 2026-07-28 request carries _meta with "${META.protocolVersion}" and "${META.clientCapabilities}"`,
      ),
    );
  }

  #discover(): ResultObject {
    const result: ResultObject = {
      resultType: "complete",
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: this.capabilities,
    };
    if (this.#options.instructions !== undefined) result.instructions = this.#options.instructions;
    return result;
  }

  async #listen(context: RequestContext, params: Record<string, unknown>): Promise<ResultObject> {
    const parsed = CLIENT_REQUESTS["subscriptions/listen"].params.safeParse(params);
    if (!parsed.success) throw refuse(McpError.invalidParams(`Invalid params: ${firstIssue(parsed.error)}`));
    const requested = (parsed.data as ListenParams).notifications;
    const filter = honouredFilter(requested, this.capabilities);
    if (requested.taskIds && this.#options.tasks) {
      filter.taskIds = await this.#options.tasks.ownTaskIds(context, requested.taskIds);
    }
    await this.#subscriptions.listen(context, filter);
    return { resultType: "complete", _meta: { [META.subscriptionId]: context.requestId } };
  }

  /** `checkedMeta` is the `_meta` the envelope check passed: params still carrying it skip a second check. */
  async #invoke(
    key: keyof Handlers,
    params: Record<string, unknown>,
    context: RequestContext,
    checkedMeta: unknown,
  ): Promise<ResultObject> {
    const method = context.method as RequestMethod;
    const schema =
      params._meta === checkedMeta ? RequestParamsAfterEnvelope[method] : RequestParamsByMethod[method];
    const parsed = schema.safeParse(params);
    if (!parsed.success) throw McpError.invalidParams(`Invalid params: ${firstIssue(parsed.error)}`);
    const handler = this.#handlers[key] as (ctx: RequestContext, params: unknown) => Promise<ResultObject>;
    let result: ResultObject;
    try {
      result = await handler(context, parsed.data);
    } catch (error) {
      if (context.method !== "tools/call" || error instanceof McpError) throw error;
      // A tool that fails reports it to the model as a tool result, not as a protocol error.
      return this.#toolFailure(context, error);
    }
    if (key === "listTools") this.#tools.remember(result);
    return checkedResult(context, result, params, { logger: this.logger, cache: this.#options.cache });
  }

  #toolFailure(context: RequestContext, error: unknown): ResultObject {
    const fields = { method: context.method, requestId: context.requestId };
    this.logger.warn({ ...fields, ...describeError(error) }, "tool handler threw");
    const stack = stackOf(error);
    if (stack !== undefined) this.logger.debug({ ...fields, stack }, "tool handler stack");
    const exposed =
      error instanceof ToolError || (this.#options.exposeErrors === true && error instanceof Error);
    const text = exposed
      ? (error as Error).message
      : `Tool execution failed (request ${String(context.requestId)})`;
    return { resultType: "complete", content: [{ type: "text", text }], isError: true };
  }

  #withServerInfo(result: ResultObject): ResultObject {
    const meta = result._meta as Record<string, unknown> | undefined;
    return { ...result, _meta: { ...meta, [META.serverInfo]: this.info } };
  }

  /** Pages of this server's own tools/list, read when no registry describes its tools. */
  #toolPageReader(request: JsonRpcRequest, meta: RequestMeta, options: HandleOptions) {
    const listTools = this.#handlers.listTools;
    if (!listTools) return undefined;
    return async (cursor: string | undefined): Promise<ResultObject> => {
      const context = this.#context({ id: request.id, method: "tools/list" }, meta, {
        ...options,
        notify: undefined,
      });
      const page = await listTools(context, cursor === undefined ? { _meta: meta } : { _meta: meta, cursor });
      return page as ResultObject;
    };
  }
}

/** Brings the 2025 era into a server being made, given its `legacy` option; undefined for none. */
export type EraComposer = (
  server: Server,
  option: boolean | LegacyOptions | undefined,
) => UnenvelopedEra | undefined;

/** What transports serve: a low-level Server, or an object that owns one (such as McpServer). */
export type ServerSource = Server | { readonly server: Server };

export function serverOf(source: ServerSource): Server {
  return source instanceof Server ? source : source.server;
}
