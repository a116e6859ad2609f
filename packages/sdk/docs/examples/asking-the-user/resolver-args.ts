import { ask, McpServer, resolver } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "infra", version: "1.0.0" });

const login = resolver(() => ask.elicit("Username?", z.object({ name: z.string() })));
// A resolver that only reads an argument: its `args` type is what the tool's input must have.
const service = resolver(({ args }: { args: { service: string } }) => args.service);
// The dependant reads the argument through it, and the answer it depends on.
const confirm = resolver({ login, service }, ({ login, service }) =>
  ask.elicit(`Deploy ${service} as ${login.name}?`, z.object({ ok: z.boolean() })),
);

mcp.tool(
  "deploy",
  { input: z.object({ service: z.string() }), resolve: { confirm } },
  ({ service }, { confirm }) => (confirm.ok ? `Deploying ${service}` : "Not deployed"),
);
// A tool whose input lacks `service` is a type error: the requirement travels through `confirm`.
