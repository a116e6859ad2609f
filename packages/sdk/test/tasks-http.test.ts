import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../src/client/client.js";
import { McpError } from "../src/protocol/errors.js";
import { TASKS_EXTENSION } from "../src/protocol/schemas/tasks.js";
import { MemoryTaskStore } from "../src/server/fleet/memory-task-store.js";
import type { McpServer } from "../src/server/mcp-server/mcp-server.js";
import { type RunningHttpServer, startHttpServer } from "../src/test-support/http.js";
import { deferred } from "../src/test-support/in-process.js";
import { taskHost } from "./support/task-host.js";

/** A client and a server over real HTTP on an ephemeral port: the client follows tasks to their end. */

const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

const TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };

/** The in-memory store, telling when a task is first read: the client has its id and is polling. */
class PolledStore extends MemoryTaskStore {
  readonly polled = deferred();
  override get(taskId: string) {
    this.polled.resolve();
    return super.get(taskId);
  }
}

function taskServer() {
  const store = new PolledStore();
  const { mcp, started, stopped } = taskHost(store);
  return { mcp, started, stopped, store };
}

async function serve(mcp: McpServer): Promise<string> {
  const http = await startHttpServer(mcp.server);
  running.push(http);
  return http.url;
}

describe("a client following tasks over HTTP", () => {
  it("follows a task to its result, answering its question through onElicit", async () => {
    const { mcp } = taskServer();
    const client = new Client(await serve(mcp), {
      capabilities: TASKS_CAPABILITY,
      onElicit: () => ({ action: "accept", content: { name: "Ada" } }),
    });
    const result = await client.callTool("greet");
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });

  it("gets the same result by rounds on the wire when it does not declare the extension", async () => {
    const { mcp } = taskServer();
    const client = new Client(await serve(mcp), {
      onElicit: () => ({ action: "accept", content: { name: "Bo" } }),
    });
    expect((await client.callTool("greet")).content).toEqual([{ type: "text", text: "Hello, Bo!" }]);
  });

  it("throws a failed task's JSON-RPC error", async () => {
    const { mcp } = taskServer();
    const client = new Client(await serve(mcp), { capabilities: TASKS_CAPABILITY });
    const error = await client.callTool("crash").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe("the job cannot run today");
  });

  it("cancels the task with tasks/cancel when the call's signal aborts", async () => {
    const { mcp, started, stopped, store } = taskServer();
    const client = new Client(await serve(mcp), { capabilities: TASKS_CAPABILITY });
    const controller = new AbortController();
    const call = client.callTool("wait", {}, { signal: controller.signal }).catch((e: unknown) => e);
    await started.promise;
    // Aborted before the CreateTaskResult arrives, the call would never learn which task to cancel.
    await store.polled.promise;
    controller.abort(new Error("the user gave up"));
    expect(await call).toMatchObject({ message: "the user gave up" });
    await stopped.promise;
  });
});
