import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ask, McpServer, resolver } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { createNodeHandler, MemoryTaskStore, Tasks } from "@roundtrip/sdk/server";
import * as z from "zod";

/** What the release task says while it works: a hostile server's words, with terminal controls in them. */
export const HOSTILE_STATUS = "Building image \x1b]0;owned\x07\x1b[2J step 2/3";

/** The in-memory task store, able to set the statusMessage of the task made last, as a server would. */
class StatusStore extends MemoryTaskStore {
  last: string | undefined;
  /** When set, a cancel fails as a store that went away would: tasks/cancel answers an internal error. */
  refuseCancel = false;
  override async compareAndSet(...args: Parameters<MemoryTaskStore["compareAndSet"]>) {
    if (this.refuseCancel && args[1].status === "cancelled") throw new Error("the task store is unreachable");
    return super.compareAndSet(...args);
  }
  override async create(...args: Parameters<MemoryTaskStore["create"]>) {
    this.last = args[0].taskId;
    return super.create(...args);
  }
  async say(statusMessage: string): Promise<void> {
    for (;;) {
      const record = this.last === undefined ? undefined : await this.get(this.last);
      if (!record) return;
      if (await this.compareAndSet(record, { ...record, statusMessage })) return;
    }
  }
}

export interface TaskServer {
  url: string;
  store: StatusStore;
  /** Lets every held release finish. */
  finish(): void;
  /** Resolves once a held release was cancelled (tasks/cancel). */
  cancelled: Promise<void>;
  /** Lets a `review` ask its question: until then it works, saying so. */
  askReview(): void;
  /** Whether a `review`'s question was answered yet. */
  reviewAnswered(): boolean;
  close(): Promise<void>;
}

/**
 * An SDK server over real HTTP with tools run as tasks: `release` (only as a task) asks which version mid-task
 * (the task goes input_required), then says what it is doing and, with hold=true, works until
 * `finish()` or until it is cancelled.
 */
export async function startTaskServer(): Promise<TaskServer> {
  const store = new StatusStore();
  const mcp = new McpServer(
    { name: "releases", version: "3.1.0" },
    { logger: silentLogger, tasks: new Tasks({ store, pollIntervalMs: 50, logger: silentLogger }) },
  );
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let onCancel: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => {
    onCancel = resolve;
  });
  const version = resolver(() => ask.elicit("Release which version?", z.object({ version: z.string() })));
  let askReview: () => void = () => {};
  const reviewAsked = new Promise<void>((resolve) => {
    askReview = resolve;
  });
  let reviewAnswered = false;
  // Works first, then asks: the question comes while the task is followed, not before.
  const reviewer = resolver(async () => {
    await store.say("Reviewing the diff");
    await reviewAsked;
    return ask.elicit("Approve the review?", z.object({ version: z.string() }));
  });
  mcp.tool(
    "review",
    { input: z.object({}), resolve: { version: reviewer }, task: "required" },
    (_args, { version }) => {
      reviewAnswered = true;
      return `reviewed ${version.version}`;
    },
  );
  mcp.tool(
    "release",
    { input: z.object({ hold: z.boolean().optional() }), resolve: { version }, task: "required" },
    async ({ hold }, { version }, ctx) => {
      await store.say(HOSTILE_STATUS);
      if (hold) {
        const stopped = new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        await Promise.race([finished, stopped]);
        if (ctx.signal.aborted) {
          onCancel();
          return "stopped";
        }
      }
      return `released ${version.version}`;
    },
  );
  // Run as a task only for a client that declares the extension; answered directly otherwise.
  mcp.tool(
    "tag",
    { input: z.object({}), resolve: { version }, task: "optional" },
    (_args, { version }) => `tagged ${version.version}`,
  );
  const handle = createNodeHandler(mcp.server);
  const http = createServer((req, res) => {
    void handle(req, res);
  });
  http.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    store,
    finish,
    cancelled,
    askReview,
    reviewAnswered: () => reviewAnswered,
    close: async () => {
      finish();
      mcp.server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
