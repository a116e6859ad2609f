import {
  type CreateMessageResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  type InputResponses,
  ListRootsResultSchema,
  type Root,
} from "../../protocol/schemas/input-required.js";
import { SdkError } from "../../protocol/sdk-error.js";
import {
  type ElicitAnswer,
  type ElicitationSchemaLike,
  type ElicitContent,
  parseElicitContent,
} from "./elicitation-schema.js";

/** What the client answered under one key, by kind. Answers are untrusted input: validate before use. */
export type InputResponseView =
  | { kind: "missing" }
  /** `content` is absent for a URL-mode elicitation, which carries consent only. */
  | { kind: "accepted"; content: ElicitContent | undefined }
  | { kind: "declined" }
  | { kind: "cancelled" }
  | { kind: "sampling"; result: CreateMessageResult }
  | { kind: "roots"; roots: Root[] };

/** An answer the handler cannot use; its message is safe to show the client and names the key. */
export class InputResponseError extends SdkError {
  static readonly code = "ERR_INPUT_RESPONSE";
  override readonly name = "InputResponseError";
  readonly code = InputResponseError.code;
  readonly key: string;

  constructor(key: string, message: string) {
    super(message);
    this.key = key;
  }
}

/** Reads the answer under `key`, whatever kind of request it answers. */
export function inputResponse(responses: InputResponses | undefined, key: string): InputResponseView {
  const response = responses?.[key];
  if (response === undefined) return { kind: "missing" };
  const elicit = ElicitResultSchema.safeParse(response);
  if (elicit.success) {
    const { action, content } = elicit.data;
    if (action === "accept") return { kind: "accepted", content };
    return action === "decline" ? { kind: "declined" } : { kind: "cancelled" };
  }
  const sampled = CreateMessageResultSchema.safeParse(response);
  if (sampled.success) return { kind: "sampling", result: sampled.data };
  const roots = ListRootsResultSchema.safeParse(response);
  if (roots.success) return { kind: "roots", roots: roots.data.roots };
  return { kind: "missing" };
}

/**
 * The content of an accepted form under `key`, validated against the form that was asked (the same
 * zod object or elicitation schema). Undefined when there is no answer or the user declined or
 * cancelled; use `inputResponse` to tell those apart. Throws InputResponseError when the accepted
 * content does not fit the form.
 */
export function acceptedContent<S extends ElicitationSchemaLike>(
  responses: InputResponses | undefined,
  key: string,
  schema: S,
): ElicitAnswer<S> | undefined {
  const view = inputResponse(responses, key);
  if (view.kind !== "accepted") return undefined;
  if (view.content === undefined) {
    throw new InputResponseError(
      key,
      `inputResponses["${key}"] accepted the form without any content; ask again`,
    );
  }
  const parsed = parseElicitContent(schema, view.content);
  if (!parsed.ok) {
    throw new InputResponseError(
      key,
      `inputResponses["${key}"] does not match the requested schema (${parsed.problems.join("; ")}); ask again`,
    );
  }
  return parsed.value;
}
