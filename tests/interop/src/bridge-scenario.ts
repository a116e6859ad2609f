import { elicitAnswer, sampleAnswer } from "./ask-flow.js";

/**
 * What every server of the 2025-era suites serves and every client there answers, so one set of
 * expectations holds whichever SDK sits on either side. Besides the ask flow's `ask` tool, prompt
 * and template, a server offers:
 *
 * - `add`: one round, no questions;
 * - `register`: two forms, the second quoting the first answer;
 * - `summarize`: one sampling request;
 * - `workspace`: the client's roots;
 * - `approve`: a URL-mode elicitation (the user opens a page; the answer only says whether they went).
 */

export const ADD = "add";
export const REGISTER = "register";
export const SUMMARIZE = "summarize";
export const WORKSPACE = "workspace";
export const APPROVE = "approve";
/** `register` as a tool that runs as a task for every client of the tasks extension (Roundtrip's server only). */
export const REGISTER_TASK = "register_task";

export const SCENARIO_TOOLS: readonly string[] = [
  "add",
  "approve",
  "ask",
  "register",
  "summarize",
  "workspace",
];

export const APPROVAL_URL = "https://approvals.roundtrip.test/changes/42";
export const APPROVAL_MESSAGE = "Change 42 needs your approval: open the review page";
/** What `approve` answers for an elicitation action. */
export function approvalText(action: string): string {
  return `approval: ${action}`;
}

export function addText(a: number, b: number): string {
  return String(a + b);
}

/** The first question of `register`; its answer is the name the second one quotes. */
export function nameQuestion(user: string): string {
  return `Name for ${user}?`;
}
export function confirmQuestion(name: string): string {
  return `Register ${name}?`;
}
export const NAME_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};
export const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const } },
  required: ["confirm"],
};

export function registerText(name: string, confirmed: boolean): string {
  return confirmed ? `Registered ${name}` : `Did not register ${name}`;
}
/** What `register` says when the client answers as formAnswer does. */
export function expectedRegisterText(user: string): string {
  return registerText(elicitAnswer(nameQuestion(user)), true);
}

export function summarizePrompt(text: string): string {
  return `Summarize: ${text}`;
}
export function summaryText(completion: string): string {
  return `Summary: ${completion}`;
}
export function expectedSummaryText(text: string): string {
  return summaryText(sampleAnswer(summarizePrompt(text)));
}

/** The roots every client of these suites shares. */
export const ROOTS = [{ uri: "file:///work/alpha", name: "alpha" }, { uri: "file:///work/beta" }] as const;

export function rootsText(roots: readonly { uri: string }[]): string {
  return `roots: ${roots.map((root) => root.uri).join(", ") || "none"}`;
}

/**
 * A client's answer to any form of these suites: every string field gets elicitAnswer(message),
 * every boolean field true. The ask flow's `{ answer }` forms come out as that flow expects.
 */
export function formAnswer(
  message: string,
  requestedSchema: { properties?: Record<string, unknown> } | undefined,
): Record<string, string | boolean> {
  const content: Record<string, string | boolean> = {};
  for (const [field, schema] of Object.entries(requestedSchema?.properties ?? {})) {
    const type = (schema as { type?: unknown }).type;
    if (type === "boolean") content[field] = true;
    else if (type === "string") content[field] = elicitAnswer(message);
  }
  return content;
}

/** The text of the first message of a sampling request, as the suites' servers send it. */
export function firstMessageText(messages: readonly { content: unknown }[]): string {
  const content = messages[0]?.content;
  const block = Array.isArray(content) ? content[0] : content;
  const text = (block as { type?: unknown; text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text : "";
}
