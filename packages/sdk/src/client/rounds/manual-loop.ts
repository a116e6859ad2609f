import type { CarrierMethod } from "../../protocol/carriers.js";
import type { InputRequiredResult, InputResponses } from "../../protocol/schemas/input-required.js";
import type { GetPromptResult } from "../../protocol/schemas/prompts.js";
import type { ReadResourceResult } from "../../protocol/schemas/resources.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import type { CallOptions } from "../call-options.js";

export interface ManualCallOptions extends CallOptions {
  /** Return an InputRequiredResult instead of failing with InputRequiredNotAllowedError. */
  allowInputRequired?: boolean;
  /** The answers to the previous round's inputRequests, under the server's keys. */
  inputResponses?: InputResponses;
  /** The previous round's requestState, exactly as received. */
  requestState?: string;
}

export type AllowInputRequired = ManualCallOptions & { allowInputRequired: true };

/** Sends one request of a carrier call, without rounds, and returns what the server answered. */
export type SendOnce = (
  method: CarrierMethod,
  params: Record<string, unknown>,
  options: ManualCallOptions,
) => Promise<unknown>;

/**
 * One request per call, no automatic rounds: for callers who drive the loop themselves (persist
 * requestState between processes, audit every round, put a human in between). Each call is a new
 * JSON-RPC request; echo `requestState` as received and send only the latest round's answers.
 *
 * A 2025-era server never answers input_required: on its session every call here resolves with the
 * complete result, the server's questions having been answered by the callbacks during the call, and
 * `inputResponses` or `requestState` are refused with a TypeError.
 */
export class ManualLoop {
  readonly #send: SendOnce;

  constructor(send: SendOnce) {
    this.#send = send;
  }

  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: AllowInputRequired,
  ): Promise<CallToolResult | InputRequiredResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: ManualCallOptions,
  ): Promise<CallToolResult>;
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options: ManualCallOptions = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return (await this.#send("tools/call", params, options)) as CallToolResult | InputRequiredResult;
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: AllowInputRequired,
  ): Promise<GetPromptResult | InputRequiredResult>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: ManualCallOptions,
  ): Promise<GetPromptResult>;
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: ManualCallOptions = {},
  ): Promise<GetPromptResult | InputRequiredResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return (await this.#send("prompts/get", params, options)) as GetPromptResult | InputRequiredResult;
  }

  readResource(uri: string, options: AllowInputRequired): Promise<ReadResourceResult | InputRequiredResult>;
  readResource(uri: string, options?: ManualCallOptions): Promise<ReadResourceResult>;
  async readResource(
    uri: string,
    options: ManualCallOptions = {},
  ): Promise<ReadResourceResult | InputRequiredResult> {
    return (await this.#send("resources/read", { uri }, options)) as ReadResourceResult | InputRequiredResult;
  }
}
