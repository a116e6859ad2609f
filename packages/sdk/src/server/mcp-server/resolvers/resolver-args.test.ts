import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpServer } from "../../index.js";
import { ask, resolver } from "./resolvers.js";

/**
 * A resolver's `args` type travels to every tool that uses it, through any number of dependants: a tool
 * whose input lacks an argument some resolver reads is a type error (each `@ts-expect-error` below fails
 * the typecheck if that refusal ever disappears).
 */

const Ok = z.object({ ok: z.boolean() });
const login = resolver(() => ask.elicit("Username?", z.object({ name: z.string() })));
const service = resolver(({ args }: { args: { service: string } }) => args.service);
const confirm = resolver({ login, service }, ({ login, service }) =>
  ask.elicit(`Deploy ${service} as ${login.name}?`, Ok),
);

describe("the arguments resolvers read", () => {
  it("are required of the tool even beside a resolver that reads none", () => {
    const mcp = new McpServer({ name: "args", version: "1.0.0" });
    mcp.tool(
      "deploy",
      { input: z.object({ service: z.string() }), resolve: { confirm } },
      ({ service }, { confirm }) => (confirm.ok ? `Deploying ${service}` : "Not deployed"),
    );
    // @ts-expect-error confirm reads args.service (through its dependency), which this input lacks
    mcp.tool("other", { input: z.object({ region: z.string() }), resolve: { confirm } }, () => "never");
    // @ts-expect-error the same requirement, with the args-free resolver listed beside it
    mcp.tool("both", { input: z.object({ region: z.string() }), resolve: { login, confirm } }, () => "never");
    expect(mcp.server.capabilities.tools).toBeDefined();
  });
});
