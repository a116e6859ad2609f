import { ErrorCode, McpError } from "../../protocol/errors.js";
import {
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  notification,
  resultResponse,
} from "../../protocol/jsonrpc.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import type { InputRequest } from "../../protocol/schemas/input-required.js";
import { ClientAnswerSchemaByMethod } from "../../protocol/schemas/legacy.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { HandledResponse } from "../server.js";
import type { ClientReply, OutboundSend } from "../telemetry/outbound-span.js";
import { legacyQuestionParams } from "./legacy-question.js";
import { legacyResult, legacyToolList } from "./legacy-result.js";
import { type ClientAnswer, OutboundCancelled } from "./outbound-requests.js";
import type { LegacySession, MessageSender } from "./session.js";

/** State-only rounds are retried after this backoff, as the SDK client does: 50 ms doubling to 250 ms. */
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 250;

export interface BridgeInput {
  /** The client's request, as it arrived. */
  request: JsonRpcRequest;
  session: LegacySession;
  /**
   * Where requests related to this one can go (its SSE stream, or stdout); undefined when the client
   * cannot receive any on this request, and `noChannel` says why.
   */
  channel: MessageSender | undefined;
  noChannel: string;
  /** Aborted when the client cancels the request or the session ends. */
  signal: AbortSignal;
  /**
   * Puts one question to the client: `send` with the params as traced (trace context in `_meta`).
   * Absent, the question goes as it is.
   */
  ask?: (
    question: { method: string; params: Record<string, unknown> | undefined },
    send: OutboundSend,
  ) => Promise<ClientReply>;
  /** One round through the server's normal path (middleware, capability gate, handler). */
  handle(request: JsonRpcRequest): Promise<HandledResponse>;
  maxRounds: number;
  timeoutMs: number;
}

class BridgeTimeout extends Error {}

const NOT_INITIALIZED =
  "The server needs to ask the client something, and may not before the client sends notifications/initialized: send it, then call again";

/**
 * Serves one legacy request whose handler may answer input-required: each embedded request goes to
 * the client as a real server-to-client request, the answers come back as `inputResponses` with the
 * round's (sealed) `requestState`, and the handler runs again, until the result is complete. Resolves
 * to the response for the client, or undefined when the request was cancelled (nothing is sent then).
 */
export async function bridgeRequest(input: BridgeInput): Promise<JsonRpcResponse | undefined> {
  const { request, signal } = input;
  const { inputResponses: _responses, requestState: _state, ...base } = request.params ?? {};
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new BridgeTimeout()), input.timeoutMs);
  timer.unref();
  const stop = AbortSignal.any([signal, deadline.signal]);
  try {
    let params: Record<string, unknown> = base;
    let backoff = FIRST_BACKOFF_MS;
    for (let round = 1; ; round++) {
      const handled = await input.handle({ ...request, params });
      if (signal.aborted) return undefined;
      const message = handled.message;
      if ("error" in message) return message;
      const result = message.result;
      if (result.resultType !== "input_required") {
        const legacy = legacyResult(result);
        return resultResponse(request.id, request.method === "tools/list" ? legacyToolList(legacy) : legacy);
      }
      if (deadline.signal.aborted) return timedOut(request, input.timeoutMs);
      if (round >= input.maxRounds) {
        return errorResponse(
          request.id,
          new McpError(
            ErrorCode.InternalError,
            `${request.method} still needed input after ${input.maxRounds} rounds; the server's handler keeps asking, so the request was stopped`,
          ).toJSON(),
        );
      }
      const inputRequests = (result.inputRequests ?? {}) as Record<string, InputRequest>;
      const keys = Object.keys(inputRequests);
      const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
      if (keys.length === 0) {
        await sleep(backoff, stop);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        params = requestState === undefined ? base : { ...base, requestState };
        continue;
      }
      backoff = FIRST_BACKOFF_MS;
      if (!input.channel) return cannotAsk(request, input.noChannel);
      // 2025-11-25 lets a client send requests once initialize is answered, and both official servers
      // serve them, so the request runs; but a server SHOULD NOT send requests other than ping and
      // logging before notifications/initialized, so its questions wait for a call after that.
      if (!input.session.initialized) return cannotAsk(request, NOT_INITIALIZED);
      const answers = await askAll(input, input.channel, inputRequests, keys, stop);
      if ("error" in answers) return errorResponse(request.id, answers.error.toJSON());
      params = {
        ...base,
        inputResponses: answers.responses,
        ...(requestState === undefined ? {} : { requestState }),
      };
    }
  } catch (error) {
    if (signal.aborted) return undefined;
    if (deadline.signal.aborted) return timedOut(request, input.timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Asks every question of one round at once; the first failure cancels the rest. */
async function askAll(
  input: BridgeInput,
  channel: MessageSender,
  inputRequests: Record<string, InputRequest>,
  keys: readonly string[],
  stop: AbortSignal,
): Promise<{ responses: Record<string, unknown> } | { error: McpError }> {
  const round = new AbortController();
  const signal = AbortSignal.any([stop, round.signal]);
  const cancelOnClient = (id: RequestId): void => {
    const reason =
      stop.reason instanceof BridgeTimeout
        ? "The request took longer than the server allows"
        : stop.aborted
          ? "The request was cancelled"
          : "Another question of this round failed";
    // This runs in an abort listener (a cancellation, the session's end, the timeout), where a throw
    // would escape to the process: whatever the send throws or rejects with ends here, and the channel
    // reports its own faults.
    new Promise<void>((resolve) => {
      resolve(channel(notification(NotificationMethod.cancelled, { requestId: id, reason })));
    }).catch(() => undefined);
  };
  const asked = keys.map(async (key): Promise<[string, unknown]> => {
    const question = inputRequests[key] as InputRequest;
    const send: OutboundSend = (params, sent) =>
      input.session.outbound.request(
        question.method,
        params,
        (request) => {
          sent(request.id);
          return channel(request);
        },
        signal,
        cancelOnClient,
      );
    const params = legacyQuestionParams(question);
    const answer = input.ask
      ? await input.ask({ method: question.method, params }, send)
      : await send(params, () => {});
    return [key, checkAnswer(question.method, answer as ClientAnswer)];
  });
  try {
    return { responses: Object.fromEntries(await Promise.all(asked)) };
  } catch (error) {
    round.abort();
    // The other questions' rejections are the same cancellation; they must not surface unhandled.
    for (const pending of asked) pending.catch(() => undefined);
    if (error instanceof McpError) return { error };
    throw error;
  }
}

/** The client's answer as the handler expects it; a wrong shape fails the original request (-32602). */
function checkAnswer(method: InputRequest["method"], answer: ClientAnswer): unknown {
  if ("error" in answer) {
    throw new McpError(
      ErrorCode.InternalError,
      `The client could not answer ${method}: it returned error ${answer.error.code} (${answer.error.message})`,
    );
  }
  const parsed = ClientAnswerSchemaByMethod[method].safeParse(answer.result);
  if (!parsed.success) {
    throw McpError.invalidParams(
      `The client's answer to ${method} has the wrong shape: ${firstIssue(parsed.error)}`,
    );
  }
  return answer.result;
}

/** A tool reports it to the model; prompts and resources have no isError, so they get an error. */
function cannotAsk(request: JsonRpcRequest, reason: string): JsonRpcResponse {
  if (request.method === "tools/call") {
    return resultResponse(request.id, { content: [{ type: "text", text: reason }], isError: true });
  }
  return errorResponse(request.id, McpError.invalidRequest(reason).toJSON());
}

function timedOut(request: JsonRpcRequest, timeoutMs: number): JsonRpcResponse {
  return errorResponse(
    request.id,
    new McpError(
      ErrorCode.InternalError,
      `${request.method} took longer than ${describeMs(timeoutMs)} of input rounds and was stopped; try again`,
    ).toJSON(),
  );
}

/** Whole seconds as seconds, anything else in ms: a 300 ms bound must not read as "0 s". */
function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new OutboundCancelled("stopped"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(new OutboundCancelled("stopped"));
    };
    signal.addEventListener("abort", abort, { once: true });
  });
}
