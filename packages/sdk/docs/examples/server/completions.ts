import { McpServer } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
const services: Record<string, string[]> = { "eu-west-1": ["billing", "search"], "us-east-1": ["search"] };

mcp.prompt(
  "incident",
  {
    input: z.object({ region: z.string(), service: z.string() }),
    complete: {
      region: (typed) => Object.keys(services).filter((region) => region.startsWith(typed)),
      service: (typed, { arguments: { region } }) =>
        (services[region ?? ""] ?? []).filter((service) => service.startsWith(typed)),
    },
  },
  ({ region, service }) => `Write the incident report for ${service} in ${region}`,
);

mcp.resource(
  "runbook",
  {
    uri: "runbooks://{team}/{page}",
    complete: {
      team: (typed) => ({ values: ["sre", "db"].filter((team) => team.startsWith(typed)), total: 2 }),
    },
  },
  ({ team, page }) => `# ${team}/${page}`,
);
