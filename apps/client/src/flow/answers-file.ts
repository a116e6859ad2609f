import { readFile } from "node:fs/promises";
import type { CreateMessageResult, ElicitResult, Root } from "@roundtrip/sdk/protocol";
import { contentProblem, type FormField } from "../elicitation/form-fields.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { rootsFrom } from "../roots.js";

/**
 * Answers given ahead of time (--answers FILE): a JSON object keyed by the server's input request keys.
 *   form elicitation: the content object `{"runtime": "node22"}`, or `{"action": "accept", "content": {...}}`,
 *                     or "decline" / "cancel"
 *   URL elicitation:  "accept" (consent without opening a browser), "decline" or "cancel"
 *   sampling:         the reply text, or `{"text": "...", "model": "..."}`
 *   roots:            a list of directories (paths or file:// URIs)
 * An answer is checked against the question it answers before it is sent; a wrong one is a usage error
 * that names the key.
 */
export type AnswersFile = Readonly<Record<string, unknown>>;

export async function loadAnswersFile(path: string): Promise<AnswersFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(ExitCode.usage, `cannot read --answers ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(ExitCode.usage, `--answers ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError(
      ExitCode.usage,
      `--answers ${path} must hold a JSON object keyed by input request key`,
    );
  }
  return value as AnswersFile;
}

function wrong(key: string, detail: string): CliError {
  return new CliError(ExitCode.usage, `--answers: the answer for "${key}" ${detail}`);
}

const ACTIONS = ["accept", "decline", "cancel"] as const;

function isAction(value: unknown): value is (typeof ACTIONS)[number] {
  return typeof value === "string" && (ACTIONS as readonly string[]).includes(value);
}

export function formAnswer(key: string, value: unknown, fields: readonly FormField[]): ElicitResult {
  if (value === "decline" || value === "cancel") return { action: value };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw wrong(key, `must be the form's content as an object, or "decline" or "cancel"`);
  }
  const record = value as Record<string, unknown>;
  const explicit =
    isAction(record.action) && Object.keys(record).every((k) => k === "action" || k === "content");
  if (explicit && record.action !== "accept") return { action: record.action as "decline" | "cancel" };
  const content = (explicit ? record.content : record) ?? {};
  if (typeof content !== "object" || Array.isArray(content))
    throw wrong(key, "has a content that is not an object");
  const problem = contentProblem(fields, content as Record<string, unknown>);
  if (problem) throw wrong(key, `does not fit the form: ${problem}`);
  return { action: "accept", content: content as NonNullable<ElicitResult["content"]> };
}

export function urlAnswer(key: string, value: unknown): ElicitResult {
  const action = typeof value === "object" && value !== null ? (value as { action?: unknown }).action : value;
  if (value === true) return { action: "accept" };
  if (isAction(action)) return { action };
  throw wrong(key, `must be "accept", "decline" or "cancel" (it asks you to open a URL)`);
}

export function samplingAnswer(key: string, value: unknown): CreateMessageResult {
  const reply =
    typeof value === "string"
      ? { text: value }
      : (value as { text?: unknown; model?: unknown } | null | undefined);
  if (typeof reply?.text !== "string")
    throw wrong(key, `must be the reply text, or {"text": "...", "model": "..."}`);
  return {
    role: "assistant",
    content: { type: "text", text: reply.text },
    model: typeof reply.model === "string" ? reply.model : "human",
    stopReason: "endTurn",
  };
}

export async function rootsAnswer(key: string, value: unknown): Promise<Root[]> {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw wrong(key, "must be a list of directories");
  }
  const dirs = (value as string[]).map((item) => (item.startsWith("file:") ? new URL(item).pathname : item));
  return rootsFrom(dirs);
}
