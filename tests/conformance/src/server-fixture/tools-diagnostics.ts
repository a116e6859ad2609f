import { createMessage, elicitForm, inputRequired } from "@roundtrip/sdk";
import { type FixtureTool, type ListChangeHooks, noArguments, text } from "./catalogue.js";
import { acceptedContent, samplingText } from "./input-responses.js";

/** The diagnostic tools the stateless-server scenario drives. */

const needsSampling: FixtureTool = {
  definition: noArguments(
    "test_missing_capability",
    "Asks the client's model a question, so it needs the sampling capability",
  ),
  call: (_ctx, params) => {
    const answer = samplingText(params, "summary");
    if (answer !== undefined) return text(`The model said: ${answer}`);
    // The SDK refuses this with -32021 when the request did not declare sampling.
    return inputRequired({
      inputRequests: {
        summary: createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Summarise MCP in one line." } }],
          maxTokens: 50,
        }),
      },
    });
  },
};

const asksOnTheResponse: FixtureTool = {
  definition: noArguments(
    "test_streaming_elicitation",
    "Needs the user's confirmation, which it asks for in its result rather than by a request of its own",
  ),
  call: (_ctx, params) => {
    const answer = acceptedContent(params, "proceed");
    if (answer) return text(`Proceed: ${String(answer.proceed)}`);
    return inputRequired({
      inputRequests: {
        proceed: elicitForm("Proceed?", {
          type: "object",
          properties: { proceed: { type: "boolean" } },
          required: ["proceed"],
        }),
      },
    });
  },
};

const logs: FixtureTool = {
  definition: noArguments("test_logging_tool", "Logs at info, warning and debug while it runs"),
  call: async (ctx) => {
    // The context drops each message unless the request asked for that level or a more verbose one.
    await ctx.log("info", "logging tool started", "fixture");
    await ctx.log("warning", "logging tool is halfway", "fixture");
    await ctx.log("debug", "logging tool finishing", "fixture");
    return text("Logged three messages.");
  },
};

export function diagnosticTools(hooks: ListChangeHooks): FixtureTool[] {
  return [
    needsSampling,
    asksOnTheResponse,
    logs,
    {
      definition: noArguments("test_trigger_tool_change", "Announces a tools list change to subscribers"),
      call: () => {
        hooks.toolsChanged();
        return text("Announced a tools list change.");
      },
    },
    {
      definition: noArguments("test_trigger_prompt_change", "Announces a prompts list change to subscribers"),
      call: () => {
        hooks.promptsChanged();
        return text("Announced a prompts list change.");
      },
    },
  ];
}
