import type { CreateMessageRequestParams, CreateMessageResult } from "@roundtrip/sdk/protocol";
import * as z from "zod";
import { apiKeyFrom, blocksOf, joinUrl, postModelApi, unsupported } from "./message-content.js";
import { requireModel, type SamplingProvider } from "./sampling-provider.js";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
const ANTHROPIC_VERSION = "2023-06-01";

const MessagesResponse = z.looseObject({
  model: z.string().optional(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  stop_reason: z.string().nullable().optional(),
});

const STOP_REASONS: Record<string, string> = {
  end_turn: "endTurn",
  max_tokens: "maxTokens",
  stop_sequence: "stopSequence",
  tool_use: "toolUse",
};

export interface AnthropicOptions {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** The Anthropic Messages API (POST /v1/messages). */
export function anthropicProvider(options: AnthropicOptions): SamplingProvider {
  const baseUrl = options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const variable = options.apiKeyEnv ?? "ANTHROPIC_API_KEY";
  const env = options.env ?? process.env;
  const fetchImpl = options.fetch ?? fetch;
  return {
    label: `anthropic ${options.model ?? "(model from the server's hints)"} at ${baseUrl}`,
    needsPerson: false,
    async complete(params: CreateMessageRequestParams, signal?: AbortSignal): Promise<CreateMessageResult> {
      const model = requireModel(options.model, params);
      const key = apiKeyFrom(env, variable, true, "anthropic");
      const messages = params.messages.map((message) => ({
        role: message.role,
        content: blocksOf(message).map((block) => {
          if (block.type === "text") return { type: "text", text: block.text ?? "" };
          if (block.type === "image") {
            return {
              type: "image",
              source: { type: "base64", media_type: block.mimeType, data: block.data },
            };
          }
          throw unsupported(block, "anthropic");
        }),
      }));
      const body: Record<string, unknown> = { model, messages, max_tokens: params.maxTokens };
      if (params.systemPrompt) body.system = params.systemPrompt;
      if (params.temperature !== undefined) body.temperature = params.temperature;
      if (params.stopSequences?.length) body.stop_sequences = params.stopSequences;
      const answer = await postModelApi({
        provider: "anthropic",
        url: joinUrl(baseUrl, "v1/messages"),
        headers: { "anthropic-version": ANTHROPIC_VERSION, "x-api-key": key ?? "" },
        body,
        shape: MessagesResponse,
        expected: "a content list; is it the Messages API?",
        fetch: fetchImpl,
        ...(signal ? { signal } : {}),
      });
      const text = answer.content
        .filter((block) => block.type === "text")
        .map((block) => block.text ?? "")
        .join("");
      const reason = answer.stop_reason ?? undefined;
      return {
        role: "assistant",
        content: { type: "text", text },
        model: answer.model ?? model,
        ...(reason ? { stopReason: STOP_REASONS[reason] ?? reason } : {}),
      };
    },
  };
}
