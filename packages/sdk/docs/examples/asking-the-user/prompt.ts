import { acceptedContent, elicitForm, inputRequired, McpServer, toElicitationSchema } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "docs", version: "1.0.0" });
const Audience = z.object({ audience: z.enum(["executives", "engineers"]) });

mcp.prompt("briefing", { input: z.object({ topic: z.string() }) }, ({ topic }, ctx) => {
  const answer = acceptedContent(ctx.inputResponses, "audience", Audience);
  if (!answer) {
    return inputRequired({
      inputRequests: {
        audience: elicitForm(`Who is the briefing on ${topic} for?`, toElicitationSchema(Audience)),
      },
    });
  }
  return `Write a one-page briefing on ${topic} for ${answer.audience}.`;
});
