import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type InputResponse,
  ListRootsResultSchema,
} from "../../../protocol/schemas/input-required.js";
import { parseElicitContent } from "../elicitation-schema.js";
import { ResolverFailure } from "./resolver-failure.js";
import type { RecordedOutcome } from "./resolver-state.js";
import type { AnyResolver, ElicitQuestion, ElicitUrlQuestion, Question } from "./resolvers.js";

/** An answer to one question: what is recorded (`action`, `data`) and the value it gives (`value`). */
export interface AnswerOutcome {
  action: RecordedOutcome["action"];
  data: unknown;
  value: unknown;
}

/** Elicitations, form or URL, are the questions a user may decline or cancel. */
function isElicitation(question: Question): question is ElicitQuestion<unknown> | ElicitUrlQuestion {
  return question["~question"] === "elicit" || question["~question"] === "elicitUrl";
}

/** An accepted answer checked against the live question; the same check for fresh and recorded ones. */
function parseAnswer(question: Question, data: unknown): { ok: true; value: unknown } | { ok: false } {
  switch (question["~question"]) {
    case "elicit":
      return parseElicitContent(question.schema, data);
    case "elicitUrl":
      // The page's answer never reaches the client, so an accepted URL question has nothing to check.
      return { ok: true, value: undefined };
    case "sample": {
      const parsed = CreateMessageResultSchema.safeParse(data);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    }
    case "roots": {
      const parsed = ListRootsResultSchema.safeParse(data);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    }
  }
}

/** A recorded outcome, if it still fits the live question; a forged or outdated one is re-asked. */
export function restoreOutcome(question: Question, recorded: RecordedOutcome): AnswerOutcome | undefined {
  if (recorded.action !== "accept") {
    return isElicitation(question) ? { action: recorded.action, data: null, value: undefined } : undefined;
  }
  const parsed = parseAnswer(question, recorded.data);
  return parsed.ok ? { action: "accept", data: recorded.data, value: parsed.value } : undefined;
}

/**
 * The client's response to the question resolver `name` asked last round. One that does not fit is
 * the client's error, not a reason to ask again, so it fails the call.
 */
export function consumeResponse(name: string, question: Question, response: InputResponse): AnswerOutcome {
  if (!isElicitation(question)) {
    const parsed = parseAnswer(question, response);
    if (!parsed.ok) {
      const expected = question["~question"] === "sample" ? "a sampling result" : "a roots list";
      throw new ResolverFailure(
        `Resolver '${name}' received a response of the wrong kind (expected ${expected})`,
      );
    }
    return { action: "accept", data: response, value: parsed.value };
  }
  const elicit = ElicitResultSchema.safeParse(response);
  if (!elicit.success) throw new ResolverFailure(`Resolver '${name}' received a non-elicitation response`);
  const { action, content } = elicit.data;
  if (action !== "accept" || question["~question"] === "elicitUrl") {
    return { action, data: null, value: undefined };
  }
  if (content === undefined) {
    throw new ResolverFailure(`Resolver '${name}' received an accepted elicitation with no content`);
  }
  const parsed = parseElicitContent(question.schema, content);
  if (!parsed.ok) {
    throw new ResolverFailure(
      `The answer to resolver '${name}' does not match the requested schema (${parsed.problems.join("; ")})`,
    );
  }
  return { action: "accept", data: content, value: parsed.value };
}

/** The value resolver `name` resolves to; a decline fails the call unless the resolver takes outcomes. */
export function resolvedValue(
  name: string,
  resolver: AnyResolver,
  question: Question,
  outcome: AnswerOutcome,
): unknown {
  const accepted =
    question["~question"] === "elicitUrl"
      ? { action: "accept" }
      : { action: "accept", content: outcome.value };
  if (resolver.onDecline === "outcome") {
    return outcome.action === "accept" ? accepted : { action: outcome.action };
  }
  if (outcome.action !== "accept") {
    const what = outcome.action === "decline" ? "declined" : "cancelled";
    throw new ResolverFailure(
      `Resolver '${name}' could not resolve: the user ${what} the question. Call the tool again to be asked again`,
    );
  }
  return question["~question"] === "elicitUrl" ? accepted : outcome.value;
}
