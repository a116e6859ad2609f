import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingMessage,
} from "@roundtrip/sdk/protocol";
import { type Asker, askerLabel } from "../elicitation/asker.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { askInput, askSelect } from "../terminal/prompts.js";
import { safeBlock, safeInline, UNDER_LABEL } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { blocksOf } from "./providers/message-content.js";
import type { SamplingProvider } from "./providers/sampling-provider.js";

/** The person said no: a refusal has no wire form, so the call is abandoned (exit code `refused`). */
export function refusal(key: string): CliError {
  return new CliError(
    ExitCode.refused,
    `you refused the sampling request "${key}"; nothing was sent back and the call was abandoned`,
  );
}

function describeMessage(message: SamplingMessage): string {
  return blocksOf(message)
    .map((block) =>
      block.type === "text"
        ? (block.text ?? "")
        : `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ""}]`,
    )
    .join(" ");
}

/** Everything the server asked of the model, shown before anything is sent to one. */
export function showSamplingRequest(
  params: CreateMessageRequestParams,
  asker: Asker,
  terminal: Terminal,
): void {
  terminal.notice("");
  terminal.notice(`${terminal.strong(askerLabel(asker))} asks for a completion from your language model.`);
  if (params.systemPrompt) terminal.notice(`  System prompt: ${safeBlock(params.systemPrompt, UNDER_LABEL)}`);
  for (const message of params.messages) {
    terminal.notice(`  ${safeInline(message.role)}: ${safeBlock(describeMessage(message), UNDER_LABEL)}`);
  }
  const limits = [`max ${params.maxTokens} tokens`];
  if (params.temperature !== undefined) limits.push(`temperature ${params.temperature}`);
  if (params.stopSequences?.length)
    limits.push(`stop at ${params.stopSequences.map((s) => JSON.stringify(s)).join(", ")}`);
  terminal.notice(`  Limits: ${safeInline(limits.join(", "))}`);
  const preferences = params.modelPreferences;
  if (preferences) {
    const hints = preferences.hints?.map((hint) => hint.name).filter(Boolean) ?? [];
    const priorities = (["costPriority", "speedPriority", "intelligencePriority"] as const)
      .filter((name) => preferences[name] !== undefined)
      .map((name) => `${name.replace("Priority", "")} ${preferences[name]}`);
    const described = [hints.length ? `hints ${hints.join(", ")}` : "", ...priorities].filter(Boolean);
    terminal.notice(`  Model preferences: ${safeInline(described.join("; ") || "none")}`);
  }
  if (params.includeContext && params.includeContext !== "none") {
    terminal.notice(
      `  It asks to include context (${safeInline(params.includeContext)}); this client includes none.`,
    );
  }
}

/** Lets the person edit the system prompt and each text message, one line each. */
async function editRequest(
  params: CreateMessageRequestParams,
  terminal: Terminal,
): Promise<CreateMessageRequestParams> {
  const edited: CreateMessageRequestParams = { ...params, messages: [] };
  if (params.systemPrompt !== undefined) {
    edited.systemPrompt = await askInput(terminal, {
      message: "System prompt:",
      default: params.systemPrompt,
    });
  }
  for (const [index, message] of params.messages.entries()) {
    const blocks = blocksOf(message);
    if (blocks.length === 1 && blocks[0]?.type === "text") {
      const text = await askInput(terminal, {
        message: `Message ${index + 1} (${message.role}):`,
        default: blocks[0].text ?? "",
      });
      edited.messages.push({ ...message, content: { type: "text", text } });
    } else {
      edited.messages.push(message);
    }
  }
  return edited;
}

function replyText(result: CreateMessageResult): string {
  return blocksOf(result)
    .map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`))
    .join("");
}

/**
 * A sampling request with a person in the loop: the request is shown and may be sent as is, edited, or
 * refused; a model's reply is shown and may be returned, edited or refused before the server sees it.
 */
export async function reviewSampling(
  key: string,
  params: CreateMessageRequestParams,
  provider: SamplingProvider,
  asker: Asker,
  terminal: Terminal,
): Promise<CreateMessageResult> {
  showSamplingRequest(params, asker, terminal);
  const first = await askSelect(terminal, {
    message: provider.needsPerson ? "Answer it yourself?" : `Send it to ${provider.label}?`,
    choices: [
      { name: provider.needsPerson ? "Type a reply" : "Send as shown", value: "send" as const },
      ...(provider.needsPerson ? [] : [{ name: "Edit the request, then send", value: "edit" as const }]),
      { name: "Refuse", value: "refuse" as const },
    ],
  });
  if (first === "refuse") throw refusal(key);
  const request = first === "edit" ? await editRequest(params, terminal) : params;
  const reply = await provider.complete(request);
  if (provider.needsPerson) return reply;
  terminal.notice(`  Reply from ${safeInline(reply.model)}: ${safeBlock(replyText(reply), UNDER_LABEL)}`);
  const second = await askSelect(terminal, {
    message: `Return this reply to ${askerLabel(asker)}?`,
    choices: [
      { name: "Return it", value: "return" as const },
      { name: "Edit it, then return it", value: "edit" as const },
      { name: "Refuse", value: "refuse" as const },
    ],
  });
  if (second === "refuse") throw refusal(key);
  if (second === "return") return reply;
  const text = await askInput(terminal, { message: "Reply:", default: replyText(reply) });
  return { ...reply, content: { type: "text", text } };
}
