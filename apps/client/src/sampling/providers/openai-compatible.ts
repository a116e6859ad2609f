import type { CreateMessageRequestParams, CreateMessageResult } from "@roundtrip/sdk/protocol";
import * as z from "zod";
import { apiKeyFrom, blocksOf, joinUrl, postModelApi, unsupported } from "./message-content.js";
import { requireModel, type SamplingProvider } from "./sampling-provider.js";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

const ChatCompletion = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
});

const STOP_REASONS: Record<string, string> = { stop: "endTurn", length: "maxTokens", tool_calls: "toolUse" };

export interface OpenAiOptions {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/**
 * The OpenAI chat-completions API, which OpenAI, Ollama, vLLM and llama.cpp's server all speak. The key
 * is optional because local servers take none; when the variable is set it is sent as a Bearer token.
 */
export function openAiCompatibleProvider(options: OpenAiOptions): SamplingProvider {
  const baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const variable = options.apiKeyEnv ?? "OPENAI_API_KEY";
  const env = options.env ?? process.env;
  const fetchImpl = options.fetch ?? fetch;
  return {
    label: `openai-compatible ${options.model ?? "(model from the server's hints)"} at ${baseUrl}`,
    needsPerson: false,
    async complete(params: CreateMessageRequestParams, signal?: AbortSignal): Promise<CreateMessageResult> {
      const model = requireModel(options.model, params);
      const key = apiKeyFrom(env, variable, baseUrl === OPENAI_DEFAULT_BASE_URL, "openai");
      const messages: Record<string, unknown>[] = [];
      if (params.systemPrompt) messages.push({ role: "system", content: params.systemPrompt });
      for (const message of params.messages) {
        const parts = blocksOf(message).map((block) => {
          if (block.type === "text") return { type: "text", text: block.text ?? "" };
          if (block.type === "image") {
            return { type: "image_url", image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
          }
          throw unsupported(block, "openai");
        });
        const onlyText = parts.every((part) => part.type === "text");
        messages.push({
          role: message.role,
          content: onlyText ? parts.map((part) => (part as { text: string }).text).join("\n") : parts,
        });
      }
      const body: Record<string, unknown> = { model, messages, max_tokens: params.maxTokens };
      if (params.temperature !== undefined) body.temperature = params.temperature;
      if (params.stopSequences?.length) body.stop = params.stopSequences;
      const answer = await postModelApi({
        provider: "openai",
        url: joinUrl(baseUrl, "chat/completions"),
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body,
        shape: ChatCompletion,
        expected: "choices[0].message; is it a chat-completions endpoint?",
        fetch: fetchImpl,
        ...(signal ? { signal } : {}),
      });
      const choice = answer.choices[0]!;
      const reason = choice.finish_reason ?? undefined;
      return {
        role: "assistant",
        content: { type: "text", text: choice.message.content ?? "" },
        model: answer.model ?? model,
        ...(reason ? { stopReason: STOP_REASONS[reason] ?? reason } : {}),
      };
    },
  };
}
