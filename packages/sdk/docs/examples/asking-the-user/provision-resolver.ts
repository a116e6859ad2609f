import { ask, McpServer, resolver } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });
const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });

const region = resolver(({ args }: { args: { service: string } }) =>
  ask.elicit(`Where should ${args.service} run?`, Region),
);

mcp.tool(
  "provision",
  { input: z.object({ service: z.string() }), resolve: { region } },
  ({ service }, { region }) => `Provisioned ${service} in ${region.region}`,
);
