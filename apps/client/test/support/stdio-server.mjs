// A server run by the CLI's --stdio: the SDK's McpServer on stdin/stdout, with a tool whose
// arguments and annotations `tools --long` describes, a static resource, a template and a prompt.
import { elicitForm, inputRequired, inputResponse, McpServer, serveStdio } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "stdio-fixture", version: "1.0.0" });
mcp.tool(
  "echo",
  {
    title: "Echo",
    description: "Says the text back, as many times as asked",
    input: z.object({
      text: z.string().describe("What to say"),
      times: z.number().int().optional().describe("How often"),
    }),
    annotations: { readOnlyHint: true },
  },
  ({ text, times }) =>
    Array(times ?? 1)
      .fill(text)
      .join(" "),
);
mcp.tool("confirm", { description: "Asks before it answers" }, (_args, ctx) => {
  const answer = inputResponse(ctx.inputResponses, "sure");
  if (answer.kind === "missing") {
    return inputRequired({
      inputRequests: {
        sure: elicitForm("Sure?", { type: "object", properties: { ok: { type: "boolean" } } }),
      },
    });
  }
  return `confirm ${answer.kind}`;
});
mcp.resource(
  "readme",
  { uri: "notes://readme", description: "The notes' readme", mimeType: "text/plain" },
  () => "read me",
);
mcp.resource("note", { uri: "notes://{id}", description: "One note" }, ({ id }) => `note ${id}`);
mcp.prompt(
  "greeting",
  { description: "Greets someone", input: z.object({ who: z.string().describe("Whom to greet") }) },
  ({ who }) => `Say hello to ${who}`,
);
await serveStdio(mcp);
