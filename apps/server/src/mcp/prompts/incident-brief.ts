import {
  acceptedContent,
  elicitForm,
  inputRequired,
  type McpServer,
  toElicitationSchema,
} from "@roundtrip/sdk";
import * as z from "zod";

const Severity = z.object({
  severity: z.enum(["sev1", "sev2", "sev3"]).describe("How severe is the incident?"),
});

/** A prompt that asks before it renders: the severity shapes the brief it writes. */
export function registerIncidentBrief(mcp: McpServer): void {
  mcp.prompt(
    "incident_brief",
    {
      title: "Incident brief",
      description: "Drafts an incident brief for a service, after asking for the severity",
      input: z.object({ service: z.string().min(1).max(80).describe("The affected service") }),
    },
    ({ service }, ctx) => {
      const answer = acceptedContent(ctx.inputResponses, "severity", Severity);
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            severity: elicitForm(`How severe is the incident on ${service}?`, toElicitationSchema(Severity)),
          },
        });
      }
      return `Write a ${answer.severity} incident brief for ${service}: impact, timeline, current status and next update time, in under 200 words.`;
    },
  );
}
