import type { CreateMessageRequestParams, CreateMessageResult } from "@roundtrip/sdk/protocol";
import type { Terminal } from "../../terminal.js";
import type { SamplingProvider } from "./sampling-provider.js";

/** The model name a typed reply is reported under, so the server knows no LLM wrote it. */
export const HUMAN_MODEL = "human";

/** The person types the completion themselves. */
export function humanProvider(terminal: Terminal): SamplingProvider {
  return {
    label: "you (type the reply)",
    needsPerson: true,
    async complete(_params: CreateMessageRequestParams, signal?: AbortSignal): Promise<CreateMessageResult> {
      const { askInput } = await import("../../terminal/prompts.js");
      const text = await askInput(
        terminal,
        {
          message: "Your reply:",
          validate: (value) => (value.trim() === "" ? "type a reply, or press Ctrl+C to stop" : true),
        },
        signal,
      );
      return {
        role: "assistant",
        content: { type: "text", text },
        model: HUMAN_MODEL,
        stopReason: "endTurn",
      };
    },
  };
}
