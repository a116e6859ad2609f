import { carrierTarget } from "../protocol/carriers.js";
import { ErrorCode } from "../protocol/errors.js";
import {
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  resultResponse,
} from "../protocol/jsonrpc.js";
import { describeError, type Logger } from "../protocol/logger.js";
import type { Implementation, RequestId } from "../protocol/schemas/common.js";
import { InputRequestSchema } from "../protocol/schemas/input-required.js";
import { LegacyMethod } from "../protocol/schemas/legacy.js";
import { answerInputRequest, type CapabilityChoices, type InputCallbacks } from "./callbacks.js";
import { callbackName, InputCallbackError, InputRequestUnsupportedError } from "./errors.js";
import type { Untimed } from "./request-timeout.js";
import type { ServerRequestOrigin } from "./transport/client-transport.js";

/** Runs one answer inside its span. */
export type TracedAnswer = (
  request: JsonRpcRequest,
  answer: () => Promise<JsonRpcResponse>,
) => Promise<JsonRpcResponse>;

const ANSWERED_METHODS = new Set<string>(["elicitation/create", "sampling/createMessage", "roots/list"]);

/**
 * Answers the requests a 2025-era server sends on its session (elicitation/create,
 * sampling/createMessage, roots/list, ping) with the same callbacks that answer a 2026-07-28 server's
 * input requests, so one client serves both eras. What goes back to the server never carries a
 * callback's error text (it may quote the user); the full reason goes to the log.
 */
export class ServerRequestResponder {
  readonly #callbacks: InputCallbacks;
  readonly #choices: CapabilityChoices;
  readonly #server: () => Implementation | undefined;
  readonly #logger: Logger;
  readonly #running = new Map<RequestId, AbortController>();
  readonly #untimed: Untimed;
  readonly #traced: TracedAnswer;

  constructor(
    callbacks: InputCallbacks,
    choices: CapabilityChoices,
    server: () => Implementation | undefined,
    logger: Logger,
    /** Runs a callback without counting its time against the requests in flight (a person answers). */
    untimed: Untimed = (work) => work(),
    /** Answers inside the client's span for the server's request; absent, nothing is recorded. */
    traced: TracedAnswer = (_request, answer) => answer(),
  ) {
    this.#callbacks = callbacks;
    this.#choices = choices;
    this.#server = server;
    this.#logger = logger;
    this.#untimed = untimed;
    this.#traced = traced;
  }

  readonly answer = (request: JsonRpcRequest, origin: ServerRequestOrigin): Promise<JsonRpcResponse> =>
    this.#traced(request, () => this.#answer(request, origin));

  async #answer(request: JsonRpcRequest, origin: ServerRequestOrigin): Promise<JsonRpcResponse> {
    if (request.method === LegacyMethod.ping) return resultResponse(request.id, {});
    if (!ANSWERED_METHODS.has(request.method)) {
      return errorResponse(request.id, {
        code: ErrorCode.MethodNotFound,
        message: `Method not found: ${request.method}`,
      });
    }
    const parsed = InputRequestSchema.safeParse({ method: request.method, params: request.params ?? {} });
    if (!parsed.success) {
      return errorResponse(request.id, {
        code: ErrorCode.InvalidParams,
        message: `Invalid ${request.method} params: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      });
    }
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    const related = origin.relatedTo;
    const callerGaveUp = () => controller.abort(new Error(`${related?.method ?? "the call"} was cancelled`));
    if (origin.signal?.aborted) callerGaveUp();
    else origin.signal?.addEventListener("abort", callerGaveUp, { once: true });
    try {
      const result = await this.#untimed(() =>
        answerInputRequest(parsed.data, this.#callbacks, this.#choices, {
          key: String(request.id),
          round: 1,
          method: related?.method ?? "",
          target: (related && carrierTarget(related.method, related.params)) ?? "",
          server: this.#server(),
          signal: controller.signal,
        }),
      );
      return resultResponse(request.id, result as Record<string, unknown>);
    } catch (error) {
      return this.#refusal(request, error);
    } finally {
      origin.signal?.removeEventListener("abort", callerGaveUp);
      this.#running.delete(request.id);
    }
  }

  /** The server cancelled one of its requests (notifications/cancelled): its callback's signal aborts. */
  cancel(id: RequestId, reason: string | undefined): void {
    this.#running.get(id)?.abort(new Error(reason ?? "cancelled by the server"));
  }

  /** The session ended: every callback still running is told. */
  abortAll(): void {
    for (const controller of this.#running.values()) controller.abort(new Error("the session ended"));
    this.#running.clear();
  }

  #refusal(request: JsonRpcRequest, error: unknown): JsonRpcResponse {
    this.#logger.warn(
      { ...describeError(error), method: request.method },
      "a server request on the MCP session was refused",
    );
    if (error instanceof InputRequestUnsupportedError) {
      // No callback at all: the client never declared the capability, so the method is not there.
      const declared = this.#callbacks[callbackName(request.method) as keyof InputCallbacks] !== undefined;
      return errorResponse(request.id, {
        code: declared ? ErrorCode.InvalidParams : ErrorCode.MethodNotFound,
        message: declared
          ? `This client declared ${request.method} without the mode this request asks for`
          : `This client did not declare the capability ${request.method} needs`,
      });
    }
    const message =
      error instanceof InputCallbackError
        ? `The client could not answer ${request.method}`
        : "Internal error";
    return errorResponse(request.id, { code: ErrorCode.InternalError, message });
  }
}
