import { randomUUID } from "node:crypto";
import type { InputRequest } from "../../protocol/schemas/input-required.js";

/**
 * An embedded input request's params as a 2025-11-25 client must receive them. A URL-mode
 * elicitation needs an `elicitationId` there (both official clients refuse one without it), while a
 * 2026-07-28 input request may leave it out: the bridge mints one for the client to quote.
 */
export function legacyQuestionParams(question: InputRequest): Record<string, unknown> | undefined {
  const params = question.params as Record<string, unknown> | undefined;
  if (question.method !== "elicitation/create" || params?.mode !== "url") return params;
  return typeof params.elicitationId === "string" ? params : { ...params, elicitationId: randomUUID() };
}
