import { ask, createNodeHandler, McpServer, resolver } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { Tasks } from "@roundtrip/sdk/server";
import * as z from "zod";
import { type Listening, listen } from "./listen.js";

/** The tool run only as a task; it asks for a recipient mid-task. */
export const REPORT_TOOL = "quarterly_report";
export const RECIPIENT_QUESTION = "Send the report to?";
export const reportText = (quarter: string, email: string) => `Report for ${quarter} sent to ${email}`;

export interface TaskServer extends Listening {
  /** Lets every held report finish. */
  finish(): void;
  /** Resolves once a held report has its answer and works. */
  readonly holding: Promise<void>;
  /** Resolves once a held report was stopped by tasks/cancel. */
  readonly cancelled: Promise<void>;
}

/**
 * Roundtrip's McpServer with the tasks extension: `quarterly_report` runs as a task, asks its question
 * through the task (input_required, answered with tasks/update), and with hold=true works until
 * `finish()` or until the task is cancelled.
 */
export async function startTaskServer(): Promise<TaskServer> {
  const mcp = new McpServer(
    { name: "reports", version: "1.0.0" },
    { logger: silentLogger, tasks: new Tasks({ pollIntervalMs: 50, logger: silentLogger }) },
  );
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let onHold: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    onHold = resolve;
  });
  let onCancel: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => {
    onCancel = resolve;
  });
  const recipient = resolver(() => ask.elicit(RECIPIENT_QUESTION, z.object({ email: z.string() })));
  mcp.tool(
    REPORT_TOOL,
    {
      input: z.object({ quarter: z.string(), hold: z.boolean().optional() }),
      resolve: { recipient },
      task: "required",
    },
    async ({ quarter, hold }, { recipient }, ctx) => {
      if (hold) {
        onHold();
        const stopped = new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        await Promise.race([finished, stopped]);
        if (ctx.signal.aborted) {
          onCancel();
          return "stopped";
        }
      }
      return reportText(quarter, recipient.email);
    },
  );
  const listening = await listen(createNodeHandler(mcp.server));
  return {
    ...listening,
    finish,
    holding,
    cancelled,
    close: async () => {
      finish();
      mcp.server.close();
      await listening.close();
    },
  };
}
