import type * as z from "zod";
import { SERVER_REQUESTS } from "../protocol/methods.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation } from "../protocol/schemas/common.js";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestUrlParams,
  ElicitResult,
  InputRequest,
  InputResponse,
  ListRootsResult,
} from "../protocol/schemas/input-required.js";
import { callbackName, InputCallbackError, InputRequestUnsupportedError } from "./errors.js";

type Awaitable<T> = T | Promise<T>;

/** What a callback knows about the request it answers. */
export interface InputRequestContext {
  /**
   * The server's key for this input request; the answer travels back under it. On a 2025-era
   * session, the JSON-RPC id of the server's request.
   */
  readonly key: string;
  /** 1 for the first InputRequiredResult of a call, 2 for the next, and so on; 1 on a 2025-era session. */
  readonly round: number;
  /**
   * The call that asked: tools/call, prompts/get or resources/read. Empty on a 2025-era session when
   * the server's request did not travel on that call's response stream (the GET stream, stdio).
   */
  readonly method: string;
  /** The tool or prompt name, or the resource URI, of that call (empty when `method` is). */
  readonly target: string;
  /** Who is asking (from server/discover): show it to the user, as the protocol requires. */
  readonly server: Implementation | undefined;
  /** Aborted when the call is abandoned or another answer of the same round failed. */
  readonly signal: AbortSignal;
}

export type ElicitParams = ElicitRequestFormParams | ElicitRequestUrlParams;
export type ElicitCallback = (params: ElicitParams, context: InputRequestContext) => Awaitable<ElicitResult>;
/**
 * Answers a server's sampling request with one completion from your model, after showing the request
 * to your user. Return what the model said and which model said it, for example
 * `{ role: "assistant", content: { type: "text", text }, model: "gpt-5-mini", stopReason: "endTurn" }`.
 * To refuse, throw: sampling has no wire form for a refusal, so the call fails (InputCallbackError).
 */
export type SampleCallback = (
  params: CreateMessageRequestParams,
  context: InputRequestContext,
) => Awaitable<CreateMessageResult>;
export type ListRootsCallback = (context: InputRequestContext) => Awaitable<ListRootsResult>;

export interface InputCallbacks {
  onElicit?: ElicitCallback;
  onSample?: SampleCallback;
  onListRoots?: ListRootsCallback;
}

export type ElicitationMode = "form" | "url";

/** Which parts of a capability the registered callbacks handle. */
export interface CapabilityChoices {
  /** Elicitation modes `onElicit` handles; both by default. */
  elicitationModes?: readonly ElicitationMode[];
  /** Declares `sampling.tools`: `onSample` handles requests that offer tools. */
  samplingTools?: boolean;
}

/** The capabilities a request declares: one per registered callback, merged over the configured extras. */
export function declaredCapabilities(
  callbacks: InputCallbacks,
  choices: CapabilityChoices,
  extra: ClientCapabilities | undefined,
): ClientCapabilities {
  const capabilities: ClientCapabilities = { ...extra };
  if (callbacks.onElicit) {
    const modes = choices.elicitationModes ?? ["form", "url"];
    const elicitation: Record<string, Record<string, unknown>> = {};
    for (const mode of modes) elicitation[mode] = {};
    capabilities.elicitation = elicitation;
  }
  if (callbacks.onSample) capabilities.sampling = choices.samplingTools ? { tools: {} } : {};
  if (callbacks.onListRoots) capabilities.roots = {};
  return capabilities;
}

function checked<T>(schema: z.ZodType<T>, value: unknown, key: string, method: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return value as T;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.map(String).join(".")}: ` : "";
  throw new InputCallbackError(
    key,
    method,
    `it returned an invalid result (${where}${issue?.message ?? "invalid value"}); return the result the protocol defines for ${method}`,
  );
}

async function invoke<T>(key: string, method: string, call: () => Awaitable<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof InputCallbackError || error instanceof InputRequestUnsupportedError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new InputCallbackError(key, method, detail, error);
  }
}

/** Answers one embedded request with the matching callback, or explains why this client cannot. */
export async function answerInputRequest(
  request: InputRequest,
  callbacks: InputCallbacks,
  choices: CapabilityChoices,
  context: InputRequestContext,
): Promise<InputResponse> {
  const { key } = context;
  const method = request.method;
  if (context.signal.aborted) throw context.signal.reason;
  switch (request.method) {
    case "elicitation/create": {
      const { onElicit } = callbacks;
      if (!onElicit) throw missing(key, method);
      const mode: ElicitationMode = request.params.mode === "url" ? "url" : "form";
      const modes = choices.elicitationModes ?? ["form", "url"];
      if (!modes.includes(mode)) {
        throw new InputRequestUnsupportedError(
          key,
          method,
          `it asks for ${mode}-mode elicitation but the client declared only ${modes.join(", ")}; add "${mode}" to elicitationModes to handle it`,
        );
      }
      const answer = await invoke(key, method, () => onElicit(request.params, context));
      return checked(SERVER_REQUESTS["elicitation/create"].result, answer, key, method);
    }
    case "sampling/createMessage": {
      const { onSample } = callbacks;
      if (!onSample) throw missing(key, method);
      const answer = await invoke(key, method, () => onSample(request.params, context));
      return checked(SERVER_REQUESTS["sampling/createMessage"].result, answer, key, method);
    }
    case "roots/list": {
      const { onListRoots } = callbacks;
      if (!onListRoots) throw missing(key, method);
      const answer = await invoke(key, method, () => onListRoots(context));
      return checked(SERVER_REQUESTS["roots/list"].result, answer, key, method);
    }
  }
}

function missing(key: string, method: string): InputRequestUnsupportedError {
  const name = callbackName(method);
  return new InputRequestUnsupportedError(
    key,
    method,
    `no ${name} callback is registered; pass ${name} in the Client options or call client.${name}(...) before the call`,
  );
}
