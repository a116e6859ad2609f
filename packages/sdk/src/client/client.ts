import type { CarrierMethod } from "../protocol/carriers.js";
import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import { type Logger, stderrLogger } from "../protocol/logger.js";
import { resultSchemaOf } from "../protocol/methods.js";
import type { ClientCapabilities, ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../protocol/schemas/common.js";
import type { CompleteParams, CompleteResult } from "../protocol/schemas/completion.js";
import type {
  LoggingMessageParams,
  ProgressParams,
  SubscriptionFilter,
} from "../protocol/schemas/notifications.js";
import type { GetPromptResult, ListPromptsResult } from "../protocol/schemas/prompts.js";
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from "../protocol/schemas/resources.js";
import type {
  GetSkillResult,
  ListSkillsResult,
  ReadResourceDirectoryResult,
  SkillEntry,
} from "../protocol/schemas/skills.js";
import {
  type GetTaskResult,
  GetTaskResultSchema,
  TASKS_EXTENSION,
  TaskAckResultSchema,
} from "../protocol/schemas/tasks.js";
import type { CallToolResult, ListToolsResult } from "../protocol/schemas/tools.js";
import { skillUri } from "../protocol/skills.js";
import type { TelemetryOption } from "../protocol/telemetry/telemetry-options.js";
import { CallCache } from "./cache/call-cache.js";
import type { ResultCacheOptions } from "./cache/result-cache.js";
import type {
  CallOptions,
  CarrierCallOptions,
  ListOptions,
  RoundsOptions,
  TaskFollowOptions,
} from "./call-options.js";
import type { CallPeer } from "./call-peer.js";
import {
  type CapabilityChoices,
  declaredCapabilities,
  type ElicitationMode,
  type ElicitCallback,
  type InputCallbacks,
  type ListRootsCallback,
  type SampleCallback,
} from "./callbacks.js";
import { DirectCalls } from "./direct-calls.js";
import { type EraChoice, Negotiation, type ProtocolEra, type ServerDescription } from "./era/negotiation.js";
import { routeIncoming } from "./incoming.js";
import { type ListenOptions, ListenStream } from "./listen-stream.js";
import { type ListChangedHandler, NotificationRouter } from "./notification-router.js";
import { OutputSchemaRegistry } from "./output-schemas.js";
import { Requester } from "./request/requester.js";
import { callSignal, requestTimeout } from "./request-timeout.js";
import { CarrierCalls, type ToolStart } from "./rounds/carrier-calls.js";
import { type Clock, DEFAULT_MAX_ROUNDS, realClock } from "./rounds/input-required-driver.js";
import { ManualLoop } from "./rounds/manual-loop.js";
import type { CarrierCall, RoundsOutcome, SavedRound } from "./rounds/rounds.js";
import { ServerRequestResponder } from "./server-requests.js";
import { type SkillFile, verifySkillFile } from "./skill-files.js";
import { type ClientTarget, transportFor } from "./targets.js";
import type { TaskHandle } from "./tasks/task-handle.js";
import { ClientTelemetry } from "./telemetry/client-telemetry.js";
import { ToolHeaderRegistry } from "./tool-headers.js";
import { type ClientTransport, raceAbort } from "./transport/client-transport.js";
import type { HttpClientOptions } from "./transport/http-client.js";

export type { ClientTarget };

export interface ClientOptions extends InputCallbacks, CapabilityChoices {
  /**
   * Which protocol era to speak. "auto" (the default) probes with server/discover and, when the
   * server answers as a 2025-era one, opens a session with initialize instead; "modern" speaks
   * 2026-07-28 only; "legacy" speaks 2025-11-25, 2025-06-18 or 2025-03-26 only.
   */
  era?: EraChoice;
  /**
   * The era this server was found to speak before (saved from `client.era`): "auto" then starts
   * there without probing, and negotiates as usual only if the server answers as the other era.
   */
  knownEra?: ProtocolEra;
  /** Sent as clientInfo on every request. */
  info?: Implementation;
  /** Declared on every request besides what the callbacks declare (extensions, experimental). */
  capabilities?: ClientCapabilities;
  /**
   * Checks each successful tool result against the outputSchema its tool had in tools/list, failing the
   * call with StructuredContentError when structuredContent is missing or does not match. Default true.
   */
  validateStructuredContent?: boolean;
  /**
   * Reuses results the server marks fresh (`ttlMs`, `cacheScope`): the lists and resources/read.
   * `true` keeps them in this client's memory; pass options to share a store. Off by default.
   */
  cache?: boolean | ResultCacheOptions;
  /** Retries the automatic loop allows before InputRequiredRoundsExceededError. Default 10. */
  inputRequiredMaxRounds?: number;
  /** Default wall-clock bound of each call, rounds included. None by default. */
  timeoutMs?: number;
  /**
   * How long each request waits for its answer before it is cancelled with RequestTimeoutError;
   * a call's own `requestTimeoutMs` overrides it. Default 60000; 0 or Infinity waits without limit.
   */
  requestTimeoutMs?: number;
  /**
   * Spans and metrics per the OpenTelemetry MCP conventions (docs/observability.md): on by default,
   * through the providers the application registered; `false` turns them off.
   */
  telemetry?: TelemetryOption;
  /**
   * How long each request of connecting (server/discover, initialize) waits before connect() fails
   * with RequestTimeoutError and the request is cancelled. Default 30000; 0 or Infinity: no limit.
   */
  connectTimeoutMs?: number;
  /** Asks servers for log messages at this level and above (deprecated by the protocol, still served). */
  logLevel?: LoggingLevel;
  onLog?: (message: LoggingMessageParams) => void;
  /** Progress of every request (a progressToken is then sent on each). */
  onProgress?: (progress: ProgressParams) => void;
  /** The server's tools, prompts or resources changed: list them again to see the change. */
  onListChanged?: ListChangedHandler;
  /** A URL-mode elicitation finished out of band (2025-era sessions: notifications/elicitation/complete). */
  onElicitationComplete?: (elicitationId: string) => void;
  logger?: Logger;
  /** For tests: the time the backoff between state-only rounds waits on. */
  clock?: Clock;
  /** fetch and headers (Authorization) when the target is a URL. */
  http?: HttpClientOptions;
}

const DEFAULT_INFO: Implementation = { name: "roundtrip-client", version: "0.1.0" };
const NO_REQUEST_TIMEOUT = requestTimeout("requestTimeoutMs", 0);

/**
 * An MCP client for both protocol eras. With a 2026-07-28 server there is no handshake: every request
 * carries the version, capabilities and client info in `_meta`, after a `server/discover` probe that
 * settles the version; callTool, getPrompt and readResource answer the server's input requests through
 * the registered callbacks and retry until the result is complete, and `client.manualRounds` hands each
 * round to the caller instead. With a 2025-era server (found by the probe, or chosen with `era`) the
 * client opens a session with initialize and the same callbacks answer the server's requests on it.
 */
export class Client {
  readonly transport: ClientTransport;
  /** One request per call, InputRequiredResults returned to the caller: drive the rounds yourself. */
  readonly manualRounds: ManualLoop;
  readonly #options: ClientOptions;
  readonly #callbacks: InputCallbacks;
  readonly #choices: CapabilityChoices;
  readonly #logger: Logger;
  readonly #tools = new ToolHeaderRegistry();
  readonly #outputSchemas: OutputSchemaRegistry | undefined;
  readonly #cache: CallCache;
  readonly #carriers: CarrierCalls;
  readonly #direct: DirectCalls;
  readonly #notifications: NotificationRouter;
  readonly #responder: ServerRequestResponder;
  readonly #negotiation: Negotiation;
  readonly #requester: Requester;
  /** Open listen streams, by the request id their notifications are tagged with. */
  readonly #subscriptions = new Map<RequestId, (message: JsonRpcNotification) => void>();
  /** Aborted by close(), which ends every listen stream. */
  #closing = new AbortController();
  #connecting: Promise<ServerDescription> | undefined;

  constructor(target: ClientTarget, options: ClientOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? stderrLogger;
    if (options.validateStructuredContent !== false) this.#outputSchemas = new OutputSchemaRegistry();
    const { onElicit, onSample, onListRoots, elicitationModes, samplingTools } = options;
    this.#callbacks = { onElicit, onSample, onListRoots };
    this.#choices = { elicitationModes, samplingTools };
    this.#notifications = new NotificationRouter(options, this.#logger);
    const telemetry = new ClientTelemetry(options.telemetry);
    this.#responder = new ServerRequestResponder(
      this.#callbacks,
      this.#choices,
      () => this.serverInfo,
      this.#logger,
      (work) => this.#requester.untimed(work),
      (request, answer) =>
        telemetry.answer(
          request,
          { transport: this.transport, protocolVersion: () => this.#negotiation.protocolVersion },
          answer,
        ),
    );
    const connectTimeout = requestTimeout("connectTimeoutMs", options.connectTimeoutMs);
    // Checked here too, so that a bad value fails where it is given rather than on the first call.
    requestTimeout("requestTimeoutMs", options.requestTimeoutMs);
    this.transport = transportFor(target, options);
    this.#cache = CallCache.of(options.cache, this.transport, this.#logger);
    // What the negotiation and every request say of this client.
    const speaker = {
      transport: this.transport,
      info: options.info ?? DEFAULT_INFO,
      capabilities: () => this.capabilities,
      logLevel: options.logLevel,
    };
    this.#negotiation = new Negotiation(
      {
        ...speaker,
        send: (method, params) => this.#requester.send(method, params, {}, connectTimeout),
        logger: this.#logger,
      },
      options.era,
      options.knownEra,
    );
    this.#requester = new Requester({
      ...speaker,
      negotiation: this.#negotiation,
      notifications: this.#notifications,
      tools: this.#tools,
      requestTimeoutMs: options.requestTimeoutMs,
      relistTools: (signal) => this.listTools({ all: true, signal }),
      telemetry,
    });
    const routes = {
      cache: this.#cache,
      subscriptions: this.#subscriptions,
      responder: this.#responder,
      notifications: this.#notifications,
    };
    this.transport.onNotification = (message) => routeIncoming(routes, message);
    this.transport.onRequest = (request, origin) =>
      this.#negotiation.era.answer(request, origin, this.#responder);
    const peer: CallPeer = {
      callSignal: (callOptions) =>
        callSignal(callOptions.signal, callOptions.timeoutMs ?? this.#options.timeoutMs),
      ready: (signal) => this.#ready(signal),
      send: (method, params, callOptions) => this.#requester.send(method, params, callOptions),
      eraResult: (method, raw) => this.#negotiation.era.result(method, raw),
      cache: this.#cache,
    };
    this.#direct = new DirectCalls(peer);
    this.#carriers = new CarrierCalls({
      ...peer,
      // A call to a dropped tool, or with round fields the era has no use for, fails unsent.
      refuse: (method, params, fields) => {
        if (method === "tools/call") this.#tools.refuseCall(String(params.name));
        this.#negotiation.era.refuseRoundFields(method, fields, this.#negotiation);
      },
      outputSchemas: this.#outputSchemas,
      callbacks: this.#callbacks,
      choices: this.#choices,
      serverInfo: () => this.serverInfo,
      maxRounds: options.inputRequiredMaxRounds ?? DEFAULT_MAX_ROUNDS,
      clock: options.clock ?? realClock,
      tasksDeclared: () => this.capabilities.extensions?.[TASKS_EXTENSION] !== undefined,
    });
    this.manualRounds = new ManualLoop(this.#carriers.sendOnce);
  }

  /** The version every request carries: the newest both sides speak once connected. */
  get protocolVersion(): string {
    return this.#negotiation.protocolVersion;
  }
  /** The era spoken with this server, once connected: "modern" (2026-07-28) or "legacy" (2025). */
  get era(): ProtocolEra | undefined {
    return this.#negotiation.server?.era;
  }
  /** What connecting settled, once connected. */
  get server(): ServerDescription | undefined {
    return this.#negotiation.server;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#negotiation.server?.capabilities;
  }
  get serverInfo(): Implementation | undefined {
    return this.#negotiation.server?.serverInfo;
  }
  get instructions(): string | undefined {
    return this.#negotiation.server?.instructions;
  }
  /** What this client declares on each request, derived from the registered callbacks. */
  get capabilities(): ClientCapabilities {
    return declaredCapabilities(this.#callbacks, this.#choices, this.#options.capabilities);
  }

  /** Answers elicitation requests; declares `elicitation` with the given modes (both by default). */
  onElicit(callback: ElicitCallback, options: { modes?: readonly ElicitationMode[] } = {}): this {
    this.#callbacks.onElicit = callback;
    if (options.modes) this.#choices.elicitationModes = options.modes;
    return this;
  }
  /** Answers sampling requests; declares `sampling` (and `sampling.tools` with `tools: true`). */
  onSample(callback: SampleCallback, options: { tools?: boolean } = {}): this {
    this.#callbacks.onSample = callback;
    if (options.tools !== undefined) this.#choices.samplingTools = options.tools;
    return this;
  }
  /** Answers roots requests; declares `roots`. */
  onListRoots(callback: ListRootsCallback): this {
    this.#callbacks.onListRoots = callback;
    return this;
  }

  /**
   * Settles the era and version (see the `era` option): probes with server/discover, or opens a
   * 2025-era session with initialize. Calls do this themselves.
   */
  connect(): Promise<ServerDescription> {
    this.#connecting ??= this.#negotiation.negotiate().catch((error: unknown) => {
      this.#connecting = undefined;
      throw error;
    });
    return this.#connecting;
  }

  /** Ends a 2025-era session (HTTP: DELETE) and closes the transport. */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#closing = new AbortController();
    this.#responder.abortAll();
    await this.transport.close();
  }

  /**
   * Subscribes with `subscriptions/listen` to the changes the filter names, and yields them as they
   * come, after the server's acknowledgement. The stream is reopened when it breaks; `return()`, the
   * `signal` or `close()` ends it. 2026-07-28 only: a 2025-era server sends its changes to
   * `onListChanged`.
   */
  listen(filter: SubscriptionFilter, options: ListenOptions = {}): ListenStream {
    this.#negotiation.era.refuseListen(this.#negotiation);
    const signals = [this.#closing.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    return new ListenStream(
      filter,
      async (notifications, signal, sent) => {
        await this.#ready(signal);
        this.#negotiation.era.refuseListen(this.#negotiation);
        // A listen stream is meant to stay open: only its signal and the server end it.
        return this.#requester.send(
          "subscriptions/listen",
          { notifications },
          { signal },
          NO_REQUEST_TIMEOUT,
          sent,
        );
      },
      this.#subscriptions,
      this.#options.clock ?? realClock,
      { ...options, signal: AbortSignal.any(signals) },
    );
  }

  /** Tells a 2025-era server that the roots onListRoots answers changed; 2026-07-28 servers ask each time. */
  async notifyRootsChanged(): Promise<void> {
    await this.#negotiation.era.rootsChanged(this.transport);
  }

  /**
   * One page of tools, or with `all: true` every page from `cursor` on; tools with invalid
   * x-mcp-header annotations are left out, with a warning.
   */
  listTools(options: ListOptions = {}): Promise<ListToolsResult> {
    return this.#direct.list("tools/list", "tools", resultSchemaOf("tools/list"), options, (page) => {
      const tools = this.#tools.admit(page.tools, this.#logger);
      this.#outputSchemas?.remember(tools);
      return { ...page, tools };
    });
  }
  listPrompts(options: ListOptions = {}): Promise<ListPromptsResult> {
    return this.#direct.list("prompts/list", "prompts", resultSchemaOf("prompts/list"), options);
  }
  listResources(options: ListOptions = {}): Promise<ListResourcesResult> {
    return this.#direct.list("resources/list", "resources", resultSchemaOf("resources/list"), options);
  }
  listResourceTemplates(options: ListOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.#direct.list(
      "resources/templates/list",
      "resourceTemplates",
      resultSchemaOf("resources/templates/list"),
      options,
    );
  }
  complete(params: Omit<CompleteParams, "_meta">, options: CallOptions = {}): Promise<CompleteResult> {
    return this.#direct.call(
      "completion/complete",
      { ...params },
      resultSchemaOf("completion/complete"),
      options,
    );
  }

  /** Calls a tool, answering the server's input requests until it completes. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: CarrierCallOptions = {},
  ): Promise<CallToolResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return this.#carriers.call("tools/call", params, options) as Promise<CallToolResult>;
  }
  /**
   * Calls a tool as callTool does, except that a task the server answers with (the tasks extension) is
   * handed back, not followed: keep its handle to `followTask`, `getTask` or `cancelTask` it later, from
   * this client or a fresh one in another process.
   */
  startTool(
    name: string,
    args?: Record<string, unknown>,
    options: CarrierCallOptions = {},
  ): Promise<ToolStart> {
    return this.#carriers.startTool(args === undefined ? { name } : { name, arguments: args }, options);
  }
  /**
   * Follows a task to its end as callTool would have: polls it, answers its questions through the
   * callbacks, returns the tool's result; a failed task throws its error, a cancelled one TaskCancelledError.
   */
  followTask(task: TaskHandle, options: TaskFollowOptions = {}): Promise<CallToolResult> {
    return this.#carriers.followTask(task, options);
  }
  /** The task as the server describes it now (tasks/get): status, questions, result or error. */
  getTask(taskId: string, options: CallOptions = {}): Promise<GetTaskResult> {
    return this.#direct.call("tasks/get", { taskId }, GetTaskResultSchema, options);
  }
  /** Asks the server to stop the task (tasks/cancel); a task already ended keeps its end. */
  async cancelTask(taskId: string, options: CallOptions = {}): Promise<void> {
    await this.#direct.call("tasks/cancel", { taskId }, TaskAckResultSchema, options);
  }
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options: CarrierCallOptions = {},
  ): Promise<GetPromptResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return this.#carriers.call("prompts/get", params, options) as Promise<GetPromptResult>;
  }
  readResource(uri: string, options: CarrierCallOptions = {}): Promise<ReadResourceResult> {
    return this.#carriers.call("resources/read", { uri }, options) as Promise<ReadResourceResult>;
  }

  /**
   * One page of the server's skills (the io.modelcontextprotocol/skills extension), or every page with
   * `all: true`: entries only, no file is read until `readSkillFile` asks for it.
   */
  listSkills(options: ListOptions = {}): Promise<ListSkillsResult> {
    return this.#direct.list("skills/list", "skills", resultSchemaOf("skills/list"), options);
  }
  /** The entry of one skill, by name (`skill://<name>/SKILL.md`) or by its SKILL.md URI. */
  getSkill(nameOrUri: string, options: CallOptions = {}): Promise<GetSkillResult> {
    const uri = nameOrUri.includes("://") ? nameOrUri : skillUri(nameOrUri);
    return this.#direct.call("skills/get", { uri }, resultSchemaOf("skills/get"), options);
  }
  /** One page of a skill directory's direct children (`resources/directory/read`); a subdirectory is `inode/directory`. */
  readResourceDirectory(
    uri: string,
    options: CallOptions & { cursor?: string } = {},
  ): Promise<ReadResourceDirectoryResult> {
    const { cursor, ...callOptions } = options;
    return this.#direct.call(
      "resources/directory/read",
      cursor === undefined ? { uri } : { uri, cursor },
      resultSchemaOf("resources/directory/read"),
      callOptions,
    );
  }
  /**
   * Reads one file of `skill` (its SKILL.md by default) and verifies it against the entry: size,
   * SHA-256 digest, and for SKILL.md the front matter. A mismatch is a SkillIntegrityError naming the file.
   */
  async readSkillFile(
    skill: SkillEntry,
    uri: string = skill.uri,
    options: CarrierCallOptions = {},
  ): Promise<SkillFile> {
    return verifySkillFile(skill, uri, await this.readResource(uri, options));
  }

  /**
   * The rounds of a tools/call, prompts/get or resources/read, with `onRound` deciding each one: answer
   * it (through the callbacks, or with the hook's own inputResponses) or stop there. Pass the `saved`
   * round of a stopped outcome, to this client or a fresh one in another process, to answer it and go on.
   */
  runRounds<M extends CarrierMethod>(
    start: CarrierCall<M> | SavedRound<M>,
    options: RoundsOptions = {},
  ): Promise<RoundsOutcome<M>> {
    return this.#carriers.runRounds(start, options);
  }

  async #ready(signal: AbortSignal | undefined): Promise<void> {
    if (!this.#negotiation.server) await raceAbort(this.connect(), signal);
  }
}
