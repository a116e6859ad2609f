import { randomUUID } from "node:crypto";
import type { RequestId } from "../../protocol/schemas/common.js";
import type { InputRequest } from "../../protocol/schemas/input-required.js";
import { randomId } from "../random-id.js";

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

/** `<instance>.<question>`: 72 then 128 random bits, base64url (which has no dot). */
const QUESTION_ID = /^([A-Za-z0-9_-]{12})\.[A-Za-z0-9_-]{22}$/;

/**
 * A new name for the instance that asks a 2025-era client something: every instance of a fleet builds
 * its own object for a session, so a question id must say which of them asked, for an answer POSTed
 * to another instance to be sent to that one alone.
 */
export function newAskingInstance(): string {
  return randomId(9, "base64url");
}

/**
 * The id of a question `instance` asks: unique across the fleet and unguessable (never a counter
 * another instance also counts, or an attacker can predict), so an answer can only be the answer to
 * the one question that carries it.
 */
export function newQuestionId(instance: string): string {
  return `${instance}.${randomId(16, "base64url")}`;
}

/** The instance that asked the question `id` names; undefined for an id no instance minted. */
export function askingInstanceOf(id: RequestId): string | undefined {
  return typeof id === "string" ? QUESTION_ID.exec(id)?.[1] : undefined;
}
