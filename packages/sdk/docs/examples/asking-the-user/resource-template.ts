import { acceptedContent, elicitForm, inputRequired, McpServer, toElicitationSchema } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "ops", version: "1.0.0" });
const Confirm = z.object({ confirm: z.boolean() });

mcp.resource("report", { uri: "reports://{id}", mimeType: "text/plain" }, ({ id }, ctx) => {
  const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
  if (!answer) {
    return inputRequired({
      inputRequests: {
        confirm: elicitForm(`Open report ${id}? Reads are audited.`, toElicitationSchema(Confirm)),
      },
    });
  }
  return answer.confirm ? `Report ${id}: all systems nominal` : `Report ${id} was not opened`;
});
