import { Server, Tasks } from "@roundtrip/sdk/server";

const tasks = new Tasks();
export const server = new Server({ name: "jobs", version: "1.0.0" }, { tasks });

server
  .onListTools(() => ({
    tools: [
      { name: "rebuild_index", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
    ],
  }))
  .onCallTool(async (ctx) => {
    const rebuild = async (signal: AbortSignal) => {
      signal.throwIfAborted();
      return { content: [{ type: "text" as const, text: "index rebuilt" }] };
    };
    // The server decides: a task when this request's client declared the extension, else directly.
    if (!tasks.negotiated(ctx)) return rebuild(ctx.signal);
    return tasks.start(ctx, async (task) => {
      const answers = await task.input({
        go: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Rebuild now?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
          },
        },
      });
      const go = answers.go as { action?: string };
      if (go.action !== "accept") return { content: [{ type: "text", text: "not rebuilt" }] };
      return rebuild(task.signal);
    });
  });
