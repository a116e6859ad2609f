import {
  acceptedContent,
  elicitForm,
  inputRequired,
  inputResponse,
  McpServer,
  toElicitationSchema,
} from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });

mcp.tool("provision", { input: z.object({ service: z.string() }) }, ({ service }, ctx) => {
  const answer = inputResponse(ctx.inputResponses, "region");
  if (answer.kind === "declined" || answer.kind === "cancelled")
    return `Provisioning of ${service} ${answer.kind}`;
  const choice = acceptedContent(ctx.inputResponses, "region", Region);
  if (!choice) {
    return inputRequired({
      inputRequests: { region: elicitForm(`Where should ${service} run?`, toElicitationSchema(Region)) },
    });
  }
  return `Provisioned ${service} in ${choice.region}`;
});
