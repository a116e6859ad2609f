import type { InputRequiredResult } from "../../protocol/schemas/input-required.js";

/**
 * Whether a handler can return an InputRequiredResult: its return type, awaited, includes one.
 * Registrations intersect their handler with a rule's text when it may not, so that the compiler's
 * error is the rule rather than a structural mismatch listing array members.
 */
export type CanAsk<H> = [
  Extract<Awaited<H extends (...args: never[]) => infer T ? T : never>, InputRequiredResult>,
] extends [never]
  ? false
  : true;

/** The rule a resolver tool's handler breaks by returning `inputRequired(...)`, worded for the compiler's message. */
export type MixedChannels =
  "A tool with resolvers asks from its resolvers and cannot return inputRequired(...): ask from a resolver, or drop `resolve` and build the InputRequiredResult by hand";

/** The rule a static resource's handler breaks by returning `inputRequired(...)`, worded for the compiler's message. */
export type StaticResourceAsks =
  "A static resource cannot return inputRequired(...): only a resource template (a URI with {variables}) may ask for input";
