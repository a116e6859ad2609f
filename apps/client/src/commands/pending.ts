import { type GlobalFlags, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { describeFailure } from "../error-report.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { carrierCall } from "../flow/drive-flow.js";
import { checkSavedFlow } from "../flow/saved-state.js";
import { waitingLines, waitingQuestions } from "../flow/waiting-questions.js";
import type { ResultWriter } from "../json-output.js";
import { type PendingFlow, PendingStore } from "../pending-store.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

export interface PendingFlags extends GlobalFlags {
  delete?: string;
  prune?: boolean;
}

/** Lists the flows --detach saved (never their requestState), deletes one, or prunes the dead ones. */
export async function pendingCommand(
  flags: PendingFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const store = new PendingStore(settings.home);
  if (flags.prune) return prune(store, settings.home, terminal, writer);
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

type PruneOutcome = "deleted" | "finished" | "kept" | "unchecked";

/**
 * Asks each saved flow's server whether it can still open the flow (the state-only round `resume`
 * asks first) and deletes the ones it refuses. A server that cannot be reached decides nothing: its
 * flows are kept, and the reason is said.
 */
async function prune(
  store: PendingStore,
  home: string,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const rows: { id: string; server: string; outcome: PruneOutcome; reason?: string }[] = [];
  for (const flow of await store.list()) {
    try {
      const outcome = await pruneOne(flow, store, home, terminal);
      rows.push({ id: flow.id, server: flow.server, outcome });
    } catch (error) {
      rows.push({
        id: flow.id,
        server: flow.server,
        outcome: "unchecked",
        reason: describeFailure(error, flow.server).message,
      });
    }
  }
  if (writer.json) writer.document({ pruned: rows });
  else if (rows.length === 0) writer.text("No pending flows.");
  else {
    const verb: Record<PruneOutcome, string> = {
      deleted: "deleted: its server can no longer open it",
      finished: "deleted: its server finished it without more answers (run the call again for its result)",
      kept: "kept",
      unchecked: "kept, not checked",
    };
    writer.text(
      rows
        .map(
          (row) =>
            `${row.id}  on ${row.server}  ${verb[row.outcome]}${row.reason ? ` (${safeInline(row.reason)})` : ""}`,
        )
        .join("\n"),
    );
  }
  return ExitCode.ok;
}

async function pruneOne(
  flow: PendingFlow,
  store: PendingStore,
  home: string,
  terminal: Terminal,
): Promise<PruneOutcome> {
  if (flow.requestState === undefined) return "kept";
  const connection = await connect({ server: flow.server, home, terminal, browser: false });
  try {
    await connection.client.connect();
    const check = await checkSavedFlow(connection.client, carrierCall(flow), flow, store);
    if (check.kind !== "refused") return check.kind === "complete" ? "finished" : "kept";
    await store.delete(flow.id);
    return "deleted";
  } finally {
    await connection.close();
  }
}
