import type {
  CreateMessageRequest,
  CreateMessageRequestParams,
  ElicitationSchema,
  ElicitRequest,
  InputRequest,
  InputRequiredResult,
  ListRootsRequest,
} from "./schemas/input-required.js";

export interface InputRequiredSpec {
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}

/**
 * Builds the result that asks the client for input. At least one of `inputRequests` and
 * `requestState` is required, as the protocol says.
 */
export function inputRequired(spec: InputRequiredSpec): InputRequiredResult {
  const hasRequests = spec.inputRequests !== undefined && Object.keys(spec.inputRequests).length > 0;
  if (!hasRequests && spec.requestState === undefined) {
    throw new TypeError(
      "inputRequired() needs inputRequests, requestState or both: an InputRequiredResult with neither gives the client nothing to do",
    );
  }
  const result: InputRequiredResult = { resultType: "input_required" };
  if (hasRequests) result.inputRequests = spec.inputRequests;
  if (spec.requestState !== undefined) result.requestState = spec.requestState;
  return result;
}

/** A form-mode elicitation; the mode is written out so every client reads it the same way. */
export function elicitForm(message: string, requestedSchema: ElicitationSchema): ElicitRequest {
  return { method: "elicitation/create", params: { mode: "form", message, requestedSchema } };
}

/** A URL-mode elicitation: the client shows the whole URL and opens it only with consent. */
export function elicitUrl(message: string, url: string): ElicitRequest {
  return { method: "elicitation/create", params: { mode: "url", message, url } };
}

/**
 * A sampling request: one completion from the client's language model, which the client shows to its
 * user first. `messages` (each a `role` and a `content` such as `{ type: "text", text }`) and
 * `maxTokens` are required; `systemPrompt`, `temperature`, `stopSequences` and `modelPreferences`
 * are hints the client may change. The answer is a CreateMessageResult:
 * `{ role: "assistant", content: { type: "text", text: "…" }, model: "…", stopReason?: "endTurn" }`.
 */
export function createMessage(params: CreateMessageRequestParams): CreateMessageRequest {
  return { method: "sampling/createMessage", params };
}

export function listRoots(): ListRootsRequest {
  return { method: "roots/list" };
}

export function isInputRequiredResult(value: unknown): value is InputRequiredResult {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { resultType?: unknown }).resultType === "input_required"
  );
}
