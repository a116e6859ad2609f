import { createMessage, inputRequired, inputResponse, McpServer } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "docs", version: "1.0.0" });

mcp.prompt("release-notes", { input: z.object({ changes: z.string() }) }, ({ changes }, ctx) => {
  const answer = inputResponse(ctx.inputResponses, "title");
  if (answer.kind !== "sampling") {
    // Round one: ask the client's model for a title. The client's onSample answers it.
    return inputRequired({
      inputRequests: {
        title: createMessage({
          messages: [
            { role: "user", content: { type: "text", text: `A title of five words for: ${changes}` } },
          ],
          maxTokens: 20,
        }),
      },
    });
  }
  // Round two: the answer is the model's message, validated as a CreateMessageResult; its content may
  // be any content block (or several), so take the text only when it is text.
  const { content, model } = answer.result;
  const block = Array.isArray(content) ? content[0] : content;
  const title = block?.type === "text" ? block.text.trim() : "Release notes";
  return `Write release notes titled "${title}" (title by ${model}) for:\n${changes}`;
});
