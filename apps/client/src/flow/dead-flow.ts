import { CliError, ExitCode } from "../exit-codes.js";
import type { PendingFlow, PendingStore } from "../pending-store.js";
import type { Terminal } from "../terminal.js";

/** Why a flow whose saved state its server refuses cannot go on, without what to do about it. */
function whyDead(id: string, server: string): string {
  return `pending flow ${id} can no longer be resumed: ${server} refused its saved state (Invalid or expired requestState: the server restarted with a key of its own process, its keys were rotated, or the state outlived its lifetime)`;
}

/** The dead flow as the one line `resume` exits 2 with, saying how to drop it. */
export function deadFlow(id: string, server: string): CliError {
  return new CliError(
    ExitCode.usage,
    `${whyDead(id, server)}; run the call again, and drop this flow with \`roundtrip pending --delete ${id}\` (or \`roundtrip pending --prune\` for every such flow)`,
  );
}

/**
 * What `resume` ends with when the server refuses a saved flow. A person at the terminal is offered to
 * drop it there (default no: the file is theirs); without a terminal, or with --yes, which approves
 * what a server asks and not what is done to the user's own files, nothing is asked and the line says
 * how to drop it. Either way the flow could not be resumed, so the exit code is that of a dead flow.
 */
export async function settleDeadFlow(
  flow: PendingFlow,
  server: string,
  store: PendingStore,
  options: { terminal: Terminal; yes: boolean },
): Promise<CliError> {
  if (!options.terminal.interactive || options.yes) return deadFlow(flow.id, server);
  // Loaded only when a person is asked: most runs have no terminal, and the prompts cost every start.
  const { askConfirm } = await import("../terminal/prompts.js");
  const drop = await askConfirm(options.terminal, {
    message: `Pending flow ${flow.id} can no longer be resumed: ${server} refused its saved state. Drop it from \`roundtrip pending\`?`,
    default: false,
  });
  if (!drop) return deadFlow(flow.id, server);
  await store.delete(flow.id);
  return new CliError(
    ExitCode.usage,
    `${whyDead(flow.id, server)}; dropped it from \`roundtrip pending\`: run the call again`,
  );
}
