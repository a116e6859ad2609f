import { type GlobalFlags, resolveSettings } from "../config/settings.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { waitingLines, waitingQuestions } from "../flow/waiting-questions.js";
import type { ResultWriter } from "../json-output.js";
import { PendingStore } from "../pending-store.js";
import type { Terminal } from "../terminal.js";

export interface PendingFlags extends GlobalFlags {
  delete?: string;
}

/** Lists the flows --detach saved (never their requestState), or deletes one. */
export async function pendingCommand(
  flags: PendingFlags,
  _terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const store = new PendingStore(settings.home);
  if (flags.delete !== undefined) {
    await store.load(flags.delete);
    await store.delete(flags.delete);
    if (writer.json) writer.document({ status: "deleted", id: flags.delete });
    else writer.text(`Deleted pending flow ${flags.delete}.`);
    return ExitCode.ok;
  }
  const flows = await store.list();
  const rows = flows.map((flow) => ({
    id: flow.id,
    createdAt: flow.createdAt,
    server: flow.server,
    method: flow.method,
    target: flow.target,
    waiting: flow.waiting,
    questions: waitingQuestions(flow.inputRequests, flow.waiting),
  }));
  if (writer.json) writer.document({ pending: rows });
  else if (rows.length === 0) writer.text("No pending flows.");
  else {
    writer.text(
      rows
        .map((row) =>
          [
            `${row.id}  ${row.createdAt}  ${row.method} ${row.target}  on ${row.server}  waits for ${row.waiting.join(", ")}`,
            ...waitingLines(row.questions),
          ].join("\n"),
        )
        .join("\n"),
    );
  }
  return ExitCode.ok;
}
