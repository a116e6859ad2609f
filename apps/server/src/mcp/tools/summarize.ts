import { ask, type CreateMessageResult, type McpServer, resolver } from "@roundtrip/sdk";
import * as z from "zod";

const Input = z.object({
  text: z.string().min(1).max(20_000).describe("The text to summarize"),
});
type Args = z.output<typeof Input>;

// The completion comes from the client's model: this server holds no model and no API key.
const summary = resolver(({ args }: { args: Args }) =>
  ask.sample({
    systemPrompt: "You write one-sentence summaries. Answer with the summary only.",
    messages: [{ role: "user", content: { type: "text", text: `Summarize:\n\n${args.text}` } }],
    maxTokens: 200,
  }),
);

/** The text of a completion, whether its content is one block or several. */
function textOf(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("")
    .trim();
}

/** Resolver form, sampling: the client's LLM writes the summary. */
export function registerSummarize(mcp: McpServer): void {
  mcp.tool(
    "summarize",
    {
      title: "Summarize text",
      description: "Summarizes a text in one sentence with the client's language model",
      input: Input,
      resolve: { summary },
    },
    (_args, { summary }) => {
      const text = textOf(summary);
      return text === "" ? "The model returned no text" : `Summary (by ${summary.model}): ${text}`;
    },
  );
}
