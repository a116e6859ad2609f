import { setTimeout as sleep } from "node:timers/promises";
import { ask, McpServer, resolver } from "@roundtrip/sdk";
import { Tasks } from "@roundtrip/sdk/server";
import * as z from "zod";

// One process: tasks live in its memory. A fleet passes a shared `store` and the same 32-byte `key`.
const tasks = new Tasks({ ttlMs: 60 * 60 * 1000, pollIntervalMs: 2000 });
export const mcp = new McpServer({ name: "reports", version: "1.0.0" }, { tasks });

const recipient = resolver(() => ask.elicit("Send the report to?", z.object({ email: z.string() })));

mcp.tool(
  "quarterly_report",
  { input: z.object({ quarter: z.string() }), resolve: { recipient }, task: "optional" },
  async ({ quarter }, { recipient }, ctx) => {
    // In a task, ctx.signal aborts on tasks/cancel; in a direct call, when the client goes away.
    await sleep(30_000, undefined, { signal: ctx.signal });
    return `Report for ${quarter} sent to ${recipient.email}`;
  },
);
