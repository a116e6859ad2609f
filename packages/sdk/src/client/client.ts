import type * as z from "zod";
import type { CarrierMethod } from "../protocol/carriers.js";
import { ErrorCode, McpError } from "../protocol/errors.js";
import { isInputRequiredResult } from "../protocol/input-required.js";
import type { JsonRpcRequest } from "../protocol/jsonrpc.js";
import { type Logger, stderrLogger } from "../protocol/logger.js";
import type { ClientCapabilities, ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/schemas/common.js";
import {
  type CompleteParams,
  type CompleteResult,
  CompleteResultSchema,
} from "../protocol/schemas/completion.js";
import { type DiscoverResult, DiscoverResultSchema } from "../protocol/schemas/discover.js";
import { type InputRequiredResult, InputRequiredResultSchema } from "../protocol/schemas/input-required.js";
import type { LoggingMessageParams, ProgressParams } from "../protocol/schemas/notifications.js";
import {
  type GetPromptResult,
  GetPromptResultSchema,
  type ListPromptsResult,
  ListPromptsResultSchema,
} from "../protocol/schemas/prompts.js";
import {
  type ListResourcesResult,
  ListResourcesResultSchema,
  type ListResourceTemplatesResult,
  ListResourceTemplatesResultSchema,
  type ReadResourceResult,
  ReadResourceResultSchema,
} from "../protocol/schemas/resources.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  type ListToolsResult,
  ListToolsResultSchema,
} from "../protocol/schemas/tools.js";
import {
  JSONRPC_VERSION,
  LATEST_PROTOCOL_VERSION,
  META,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../protocol/versions.js";
import { firstIssue } from "../protocol/zod-issues.js";
import type { CallOptions, CarrierCallOptions, RoundsOptions } from "./call-options.js";
import {
  answerInputRequest,
  type CapabilityChoices,
  declaredCapabilities,
  type ElicitationMode,
  type ElicitCallback,
  type InputCallbacks,
  type ListRootsCallback,
  type SampleCallback,
} from "./callbacks.js";
import { InputRequiredNotAllowedError, ToolRejectedError, VersionNegotiationError } from "./errors.js";
import {
  type Clock,
  DEFAULT_MAX_ROUNDS,
  driveRounds,
  type InputRequiredLoop,
  type LoopRound,
  type RetryFields,
  realClock,
  runInputRequiredLoop,
} from "./input-required-driver.js";
import { type LegSender, type ManualCallOptions, ManualLoop } from "./manual-loop.js";
import { NotificationRouter } from "./notification-router.js";
import { readCarrierResult, readResult } from "./results.js";
import type { CarrierCall, CarrierResults, RoundsOutcome, SavedRound } from "./rounds.js";
import { type ClientTarget, transportFor } from "./targets.js";
import { ToolHeaderRegistry } from "./tool-headers.js";
import { type ClientTransport, raceAbort } from "./transport/client-transport.js";
import { type HttpClientOptions, ResponseStreamClosedError } from "./transport/http-client.js";
import { mutualVersion, supportedVersionsOf } from "./version-negotiation.js";

export type { ClientTarget };

export interface ClientOptions extends InputCallbacks, CapabilityChoices {
  /** Sent as clientInfo on every request. */
  info?: Implementation;
  /** Declared on every request besides what the callbacks declare (extensions, experimental). */
  capabilities?: ClientCapabilities;
  /** Retries the automatic loop allows before InputRequiredRoundsExceededError. Default 10. */
  inputRequiredMaxRounds?: number;
  /** Default wall-clock bound of each call, rounds included. None by default. */
  timeoutMs?: number;
  /** Asks servers for log messages at this level and above (deprecated by the protocol, still served). */
  logLevel?: LoggingLevel;
  onLog?: (message: LoggingMessageParams) => void;
  /** Progress of every request (a progressToken is then sent on each). */
  onProgress?: (progress: ProgressParams) => void;
  logger?: Logger;
  /** For tests: the time the backoff between state-only rounds waits on. */
  clock?: Clock;
  /** fetch and headers (Authorization) when the target is a URL. */
  http?: HttpClientOptions;
}

export interface ListOptions extends CallOptions {
  cursor?: string;
}

const DEFAULT_INFO: Implementation = { name: "roundtrip-client", version: "0.1.0" };
const MAX_TOOL_PAGES = 100;

const CARRIER_SCHEMAS: Record<CarrierMethod, z.ZodType<Record<string, unknown>>> = {
  "tools/call": CallToolResultSchema,
  "prompts/get": GetPromptResultSchema,
  "resources/read": ReadResourceResultSchema,
};

function retryFieldsOf(options: { inputResponses?: RetryFields["inputResponses"]; requestState?: string }) {
  const fields: RetryFields = {};
  if (options.inputResponses !== undefined) fields.inputResponses = options.inputResponses;
  if (options.requestState !== undefined) fields.requestState = options.requestState;
  return fields;
}

function targetOf(params: Record<string, unknown>): string {
  return String(params.name ?? params.uri ?? "");
}

/** Where a saved round resumes; its answers and requestState are decided there, so none may come with it. */
function resumePoint(saved: SavedRound, options: CarrierCallOptions): LoopRound {
  if (options.inputResponses !== undefined || options.requestState !== undefined) {
    throw new TypeError(
      "runRounds was given a saved round and inputResponses or requestState: the saved round's answers and requestState are decided when it resumes; pass a CarrierCall to send answers of your own",
    );
  }
  if (!Number.isInteger(saved.round) || saved.round < 1) {
    throw new RangeError(`a saved round's number is a whole number from 1, not ${String(saved.round)}`);
  }
  const parsed = InputRequiredResultSchema.safeParse(saved.result);
  if (!parsed.success) {
    throw new TypeError(
      `the saved round's result is not an InputRequiredResult: ${firstIssue(parsed.error)}`,
    );
  }
  return { round: saved.round, result: saved.result };
}

/**
 * An MCP 2026-07-28 client. There is no handshake: every request carries the version, capabilities and
 * client info in `_meta`, after a `server/discover` probe that settles the version. callTool, getPrompt
 * and readResource answer the server's input requests through the registered callbacks and retry until
 * the result is complete; `client.session` hands each round to the caller instead.
 */
export class Client {
  readonly transport: ClientTransport;
  /** One request per call, InputRequiredResults returned to the caller: drive the rounds yourself. */
  readonly session: ManualLoop;
  readonly #options: ClientOptions;
  readonly #callbacks: InputCallbacks;
  readonly #choices: CapabilityChoices;
  readonly #logger: Logger;
  readonly #tools = new ToolHeaderRegistry();
  readonly #notifications: NotificationRouter;
  #nextId = 1;
  #protocolVersion = LATEST_PROTOCOL_VERSION;
  #discovered: DiscoverResult | undefined;
  #connecting: Promise<DiscoverResult> | undefined;

  constructor(target: ClientTarget, options: ClientOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? stderrLogger;
    this.#callbacks = {
      onElicit: options.onElicit,
      onSample: options.onSample,
      onListRoots: options.onListRoots,
    };
    this.#choices = { elicitationModes: options.elicitationModes, samplingTools: options.samplingTools };
    this.#notifications = new NotificationRouter(options, this.#logger);
    this.transport = transportFor(target, options);
    this.transport.onNotification = (message) => this.#notifications.route(message);
    this.session = new ManualLoop(this.#leg);
  }

  /** The version every request carries: the newest both sides speak once connected. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#discovered?.capabilities;
  }
  get serverInfo(): Implementation | undefined {
    return this.#discovered?._meta?.[META.serverInfo];
  }
  get instructions(): string | undefined {
    return this.#discovered?.instructions;
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

  /** Probes the server with server/discover and settles the protocol version. Calls do this themselves. */
  connect(): Promise<DiscoverResult> {
    this.#connecting ??= this.#discover().catch((error: unknown) => {
      this.#connecting = undefined;
      throw error;
    });
    return this.#connecting;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** One page of tools; tools with invalid x-mcp-header annotations are left out, with a warning. */
  async listTools(options: ListOptions = {}): Promise<ListToolsResult> {
    const result = await this.#call("tools/list", cursor(options), ListToolsResultSchema, options);
    return { ...result, tools: this.#tools.admit(result.tools, this.#logger) };
  }
  listPrompts(options: ListOptions = {}): Promise<ListPromptsResult> {
    return this.#call("prompts/list", cursor(options), ListPromptsResultSchema, options);
  }
  listResources(options: ListOptions = {}): Promise<ListResourcesResult> {
    return this.#call("resources/list", cursor(options), ListResourcesResultSchema, options);
  }
  listResourceTemplates(options: ListOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.#call(
      "resources/templates/list",
      cursor(options),
      ListResourceTemplatesResultSchema,
      options,
    );
  }
  complete(params: Omit<CompleteParams, "_meta">, options: CallOptions = {}): Promise<CompleteResult> {
    return this.#call("completion/complete", { ...params }, CompleteResultSchema, options);
  }

  /** Calls a tool, answering the server's input requests until it completes. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: CarrierCallOptions = {},
  ): Promise<CallToolResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return this.#rounds("tools/call", params, options) as Promise<CallToolResult>;
  }
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options: CarrierCallOptions = {},
  ): Promise<GetPromptResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return this.#rounds("prompts/get", params, options) as Promise<GetPromptResult>;
  }
  readResource(uri: string, options: CarrierCallOptions = {}): Promise<ReadResourceResult> {
    return this.#rounds("resources/read", { uri }, options) as Promise<ReadResourceResult>;
  }

  /**
   * The rounds of a tools/call, prompts/get or resources/read, with `onRound` deciding each one: answer
   * it (through the callbacks, or with the hook's own inputResponses) or stop there. Pass the `saved`
   * round of a stopped outcome, to this client or a fresh one in another process, to answer it and go on.
   */
  async runRounds<M extends CarrierMethod>(
    start: CarrierCall<M> | SavedRound<M>,
    options: RoundsOptions = {},
  ): Promise<RoundsOutcome<M>> {
    const { method } = start;
    const from = "result" in start ? resumePoint(start, options) : undefined;
    const { onRound } = options;
    const params: Record<string, unknown> = { ...start.params };
    const signal = this.#callSignal(options);
    await this.#ready(signal);
    this.#refuseDroppedTool(method, params);
    const outcome = await driveRounds({
      ...this.#loop(method, params, options, signal),
      from,
      decide:
        onRound &&
        (({ round, result }, roundSignal) =>
          onRound({
            method,
            params: start.params,
            round,
            result,
            target: targetOf(params),
            server: this.serverInfo,
            signal: roundSignal,
          })),
    });
    if (outcome.kind === "complete") return { kind: "complete", result: outcome.result as CarrierResults[M] };
    const { round, result } = outcome;
    return { kind: "stopped", saved: { method, params: start.params, round, result } };
  }

  async #rounds(
    method: CarrierMethod,
    params: Record<string, unknown>,
    options: CarrierCallOptions,
  ): Promise<unknown> {
    const signal = this.#callSignal(options);
    await this.#ready(signal);
    this.#refuseDroppedTool(method, params);
    return runInputRequiredLoop(this.#loop(method, params, options, signal));
  }

  /** The rounds of one carrier request, bounded by the call's `signal`. */
  #loop(
    method: CarrierMethod,
    params: Record<string, unknown>,
    options: CarrierCallOptions,
    signal: AbortSignal | undefined,
  ): InputRequiredLoop<unknown> {
    const target = targetOf(params);
    return {
      method,
      maxRounds: this.#options.inputRequiredMaxRounds ?? DEFAULT_MAX_ROUNDS,
      clock: this.#options.clock ?? realClock,
      signal,
      seed: retryFieldsOf(options),
      send: async (fields, legSignal) => {
        const raw = await this.#send(method, { ...params, ...fields }, { ...options, signal: legSignal });
        return readCarrierResult(method, raw, CARRIER_SCHEMAS[method]);
      },
      answer: (key, request, round, answerSignal) =>
        answerInputRequest(request, this.#callbacks, this.#choices, {
          key,
          round,
          method,
          target,
          server: this.serverInfo,
          signal: answerSignal,
        }),
    };
  }

  readonly #leg: LegSender = async (method, params, options: ManualCallOptions) => {
    const signal = this.#callSignal(options);
    await this.#ready(signal);
    this.#refuseDroppedTool(method, params);
    const raw = await this.#send(method, { ...params, ...retryFieldsOf(options) }, { ...options, signal });
    const result: unknown = readCarrierResult(method, raw, CARRIER_SCHEMAS[method]);
    if (isInputRequiredResult(result) && !options.allowInputRequired)
      throw new InputRequiredNotAllowedError(method);
    return result as Record<string, unknown> | InputRequiredResult;
  };

  async #call<T>(
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodType<T>,
    options: CallOptions,
  ): Promise<T> {
    const signal = this.#callSignal(options);
    await this.#ready(signal);
    return readResult(method, await this.#send(method, params, { ...options, signal }), schema);
  }

  async #discover(): Promise<DiscoverResult> {
    const raw = await this.#send("server/discover", {}, {});
    const result = readResult("server/discover", raw, DiscoverResultSchema);
    const version = mutualVersion(result.supportedVersions);
    if (!version) throw new VersionNegotiationError(result.supportedVersions, SUPPORTED_PROTOCOL_VERSIONS);
    this.#protocolVersion = version;
    this.#discovered = result;
    return result;
  }

  async #ready(signal: AbortSignal | undefined): Promise<void> {
    if (!this.#discovered) await raceAbort(this.connect(), signal);
  }

  /**
   * Sends one JSON-RPC request (a fresh id each time) and returns its result. Three answers are fixed
   * here and sent again once, with a new id: -32022 (switch to a version both speak), -32020 on a tool
   * call (the tool's x-mcp-header annotations changed: list tools again) and a stream that broke off.
   */
  async #send(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const token = this.#notifications.open(options.onProgress);
    const resent = new Set<string>();
    try {
      while (true) {
        const request: JsonRpcRequest = {
          jsonrpc: JSONRPC_VERSION,
          id: this.#nextId++,
          method,
          params: { ...params, _meta: this.#envelope(options.meta, token) },
        };
        const headers =
          method === "tools/call" && this.transport.kind === "http"
            ? this.#tools.headersFor(
                String(params.name),
                params.arguments as Record<string, unknown> | undefined,
              )
            : undefined;
        try {
          const response = await this.transport.request(request, { signal: options.signal, headers });
          if ("error" in response) throw toMcpError(response.error);
          return response.result;
        } catch (error) {
          if (!(await this.#recover(error, resent, headers !== undefined, options.signal))) throw error;
        }
      }
    } finally {
      this.#notifications.close(token);
    }
  }

  /** Whether the request may go again after `error`; each kind of recovery happens once per request. */
  async #recover(
    error: unknown,
    resent: Set<string>,
    sentParamHeaders: boolean,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const once = (kind: string): boolean => {
      if (resent.has(kind)) return false;
      resent.add(kind);
      return true;
    };
    if (error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion && once("version")) {
      const supported = supportedVersionsOf(error.data);
      const version = mutualVersion(supported);
      if (!version) throw new VersionNegotiationError(supported, SUPPORTED_PROTOCOL_VERSIONS);
      this.#protocolVersion = version;
      return true;
    }
    if (
      error instanceof McpError &&
      error.code === ErrorCode.HeaderMismatch &&
      sentParamHeaders &&
      once("headers")
    ) {
      await this.#relistTools(signal);
      return true;
    }
    return error instanceof ResponseStreamClosedError && once("stream");
  }

  #envelope(
    extra: Record<string, unknown> | undefined,
    progressToken: string | undefined,
  ): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...extra,
      [META.protocolVersion]: this.#protocolVersion,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: this.#options.info ?? DEFAULT_INFO,
    };
    if (this.#options.logLevel !== undefined) meta[META.logLevel] = this.#options.logLevel;
    if (progressToken !== undefined) meta.progressToken = progressToken;
    return meta;
  }

  #callSignal(options: CallOptions): AbortSignal | undefined {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const signals = [
      options.signal,
      timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
    ].filter((signal): signal is AbortSignal => signal !== undefined);
    return signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
  }

  #refuseDroppedTool(method: string, params: Record<string, unknown>): void {
    if (method !== "tools/call") return;
    const reason = this.#tools.rejection(String(params.name));
    if (reason !== undefined) throw new ToolRejectedError(String(params.name), reason);
  }

  async #relistTools(signal: AbortSignal | undefined): Promise<void> {
    let next: string | undefined;
    let pages = 0;
    do {
      const page = await this.listTools({ cursor: next, signal });
      next = page.nextCursor;
      pages += 1;
    } while (next !== undefined && pages < MAX_TOOL_PAGES);
  }
}

function cursor(options: ListOptions): Record<string, unknown> {
  return options.cursor === undefined ? {} : { cursor: options.cursor };
}

function toMcpError(error: unknown): McpError {
  const value = error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  const code = typeof value?.code === "number" ? value.code : ErrorCode.InternalError;
  const message = typeof value?.message === "string" ? value.message : "The server sent a malformed error";
  return new McpError(code, message, value?.data);
}
