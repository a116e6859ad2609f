/**
 * The contract every target implements and the driver checks, so that each server does the same work
 * and a server that answers wrongly cannot look fast.
 *
 * `greet` takes two rounds: the first asks for a name with a form elicitation and hands back a
 * requestState; the retry echoes that state with the answer and gets `"{greeting}, {name}!"`. A
 * declined form ends with DECLINED_TEXT. `add` is a single round answering `String(a + b)`.
 */

export const GREET_TOOL = "greet";
/** The greeting every greet flow sends. */
export const GREETING = "Hello";
export const ADD_TOOL = "add";

/** The inputRequests key of the name question. */
export const NAME_KEY = "user";
export const NAME_QUESTION = "What is your name?";
export const DECLINED_TEXT = "No name given";

/** What the first round stores in requestState; the retry must get it back, sealed or not. */
export const GREET_STATE = "asked:greet";

/** The form the question asks, as a raw elicitation schema (both SDKs accept this shape). */
export const NAME_FORM: {
  type: "object";
  properties: { name: { type: "string" } };
  required: string[];
} = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };

/** The tools as tools/list shows them, for targets that describe their tools by hand. */
export const GREET_INPUT_SCHEMA = {
  type: "object" as const,
  properties: { greeting: { type: "string" } },
  required: ["greeting"],
};
export const ADD_INPUT_SCHEMA = {
  type: "object" as const,
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
};

export function greetText(greeting: string, name: string): string {
  return `${greeting}, ${name}!`;
}

export function addText(a: number, b: number): string {
  return String(a + b);
}
