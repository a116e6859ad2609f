import * as z from "zod";
import { McpError } from "../../src/protocol/errors.js";
import { silentLogger } from "../../src/protocol/logger.js";
import type { TaskStore } from "../../src/server/fleet/task-store.js";
import { McpServer } from "../../src/server/mcp-server/mcp-server.js";
import { ask, resolver } from "../../src/server/mcp-server/resolvers/resolvers.js";
import { Tasks } from "../../src/server/tasks/tasks.js";
import { aborted, deferred } from "../../src/test-support/in-process.js";

/**
 * A McpServer whose tasks live in `store`, polled every 20 ms, with three tools: `greet` (a task when
 * the client asks, asking for a name), `crash` (a task that fails with -32602) and `wait` (a task that
 * runs until cancelled; `started` and `stopped` say when).
 */
export function taskHost(store: TaskStore) {
  const mcp = new McpServer(
    { name: "task-host", version: "1.0.0" },
    { logger: silentLogger, tasks: new Tasks({ store, pollIntervalMs: 20, logger: silentLogger }) },
  );
  const login = resolver(() => ask.elicit("Your name?", z.object({ name: z.string() })));
  mcp.tool("greet", { task: "optional", resolve: { login } }, (_args, { login }) => `Hello, ${login.name}!`);
  mcp.tool("crash", { task: "required" }, () => {
    throw McpError.invalidParams("the job cannot run today");
  });
  const started = deferred();
  const stopped = deferred();
  mcp.tool("wait", { task: "required" }, async (_args, ctx) => {
    started.resolve();
    await aborted(ctx.signal);
    stopped.resolve();
    return "stopped";
  });
  return { mcp, started, stopped };
}
