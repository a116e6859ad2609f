import {
  acceptedContent,
  elicitForm,
  inputRequired,
  type McpServer,
  toElicitationSchema,
} from "@roundtrip/sdk";
import * as z from "zod";

const Window = z.object({
  window: z.enum(["1h", "24h", "7d"]).describe("Time window"),
});

/** A resource template that asks: which time window of the status to read. */
export function registerServiceStatus(mcp: McpServer): void {
  mcp.resource(
    "service_status",
    {
      uri: "status://{service}",
      title: "Service status",
      description: "The status of a service over a time window the user picks",
      mimeType: "text/plain",
    },
    ({ service }, ctx) => {
      const answer = acceptedContent(ctx.inputResponses, "window", Window);
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            window: elicitForm(`Status of ${service} over which window?`, toElicitationSchema(Window)),
          },
        });
      }
      return `${service}: operational over the last ${answer.window}, no incidents recorded`;
    },
  );
}
