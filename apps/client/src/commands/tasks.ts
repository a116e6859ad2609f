import { type GlobalFlags, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { isUnknownTask, unknownSavedTask } from "../flow/unknown-task.js";
import type { ResultWriter } from "../json-output.js";
import { PendingTasks } from "../pending-tasks.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

/** Lists the tasks saved to resume, with the status each had when last seen (never their task id). */
export async function tasksCommand(flags: GlobalFlags, writer: ResultWriter): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const saved = await new PendingTasks(settings.home).list();
  const rows = saved.map(({ id, savedAt, server, task }) => ({
    id,
    savedAt,
    server,
    tool: task.name,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    lastUpdatedAt: task.lastUpdatedAt,
  }));
  if (writer.json) writer.document({ tasks: rows });
  else if (rows.length === 0) writer.text("No saved tasks.");
  else {
    writer.text(
      rows
        .map((row) => {
          const message = row.statusMessage ? `: ${safeInline(row.statusMessage)}` : "";
          return `${row.id}  ${row.savedAt}  ${safeInline(row.tool)}  on ${row.server}  ${safeInline(row.status)}${message} (as of ${safeInline(row.lastUpdatedAt)})`;
        })
        .join("\n"),
    );
  }
  return ExitCode.ok;
}

/** Cancels a saved task on its server, then forgets it. */
export async function cancelTaskCommand(
  id: string,
  flags: GlobalFlags & { browser?: boolean },
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const tasks = new PendingTasks(settings.home);
  const saved = await tasks.load(id);
  const connection = await connect({
    server: saved.server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
  });
  try {
    await connection.client.cancelTask(saved.task.taskId).catch((error: unknown) => {
      throw isUnknownTask(error) ? unknownSavedTask(saved.server, id, tasks.fileOf(id), error) : error;
    });
    const now = await connection.client.getTask(saved.task.taskId);
    await tasks.delete(id);
    if (writer.json) writer.document({ status: "cancelled", id, task: { status: now.status } });
    else if (now.status === "cancelled")
      writer.text(`Cancelled task ${id} (${safeInline(saved.task.name)}).`);
    else
      writer.text(
        `Task ${id} (${safeInline(saved.task.name)}) had ended before: ${safeInline(now.status)}. It is no longer kept.`,
      );
    return ExitCode.ok;
  } finally {
    await connection.close();
  }
}
