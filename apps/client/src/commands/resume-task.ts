import { connect } from "../connection.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { SessionAnswers } from "../flow/session-answers.js";
import { cancelledTask, TaskWatch } from "../flow/task-watch.js";
import type { ResultWriter } from "../json-output.js";
import { type PendingTask, PendingTasks } from "../pending-tasks.js";
import type { Terminal } from "../terminal.js";
import { answerPolicy, type FlowFlags, flowSettings } from "./flow-options.js";
import { report, reportDetachedTask } from "./flow-report.js";

/**
 * Follows a saved task to its end on the server that runs it: its status shown as it goes, its
 * questions answered as a call's are (--answers, --yes, then the person), its result printed. A task
 * that ends (done, failed or cancelled) is no longer kept.
 */
export async function resumeTask(
  saved: PendingTask,
  flags: FlowFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const { settings, answers } = await flowSettings(flags);
  if (settings.stdio !== undefined) {
    throw new CliError(ExitCode.usage, "resume follows a task on the server it was saved from; drop --stdio");
  }
  if (flags.server !== undefined && settings.server !== saved.server) {
    throw new CliError(
      ExitCode.usage,
      `saved task ${saved.id} runs on ${saved.server}, not ${flags.server}; drop --server`,
    );
  }
  const connection = await connect({
    server: saved.server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
  });
  try {
    const { client } = connection;
    await client.connect();
    const policy = answerPolicy(flags, settings, answers, connection, terminal);
    const session = new SessionAnswers(client, policy);
    const watch = new TaskWatch({
      terminal,
      tasks: new PendingTasks(settings.home),
      server: saved.server,
      serverInfo: () => policy.asker.info,
      detachAtOnce: false,
      canDetach: true,
      resumed: { id: saved.id, task: saved.task },
    });
    watch.resume();
    let result: Record<string, unknown>;
    try {
      result = await client.followTask(saved.task, watch.callOptions);
    } catch (error) {
      const stop = await watch.settle(client, error);
      if (stop?.kind === "detached") return reportDetachedTask(stop.id, stop.task, writer, terminal);
      if (stop?.kind === "cancelled") throw cancelledTask();
      session.rethrow();
      throw error;
    }
    await watch.settle(client, undefined);
    const request = { method: "tools/call" as const, target: saved.task.name };
    return report({ kind: "complete", result, declined: [] }, request, writer, terminal);
  } finally {
    await connection.close();
  }
}
