import { requireTarget, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { driveFlow, type FlowRequest } from "../flow/drive-flow.js";
import type { ResultWriter } from "../json-output.js";
import { type PendingFlow, PendingStore } from "../pending-store.js";
import { PendingTasks } from "../pending-tasks.js";
import type { Terminal } from "../terminal.js";
import { argumentRefusal } from "./argument-refusal.js";
import { answerPolicy, type FlowFlags, flowSettings } from "./flow-options.js";
import { report } from "./flow-report.js";
import { resumeTask } from "./resume-task.js";

/** Runs call, prompt or read: every round until the result, or until --detach saves it. */
export async function runFlowCommand(
  flags: FlowFlags,
  build: (connection: Awaited<ReturnType<typeof connect>>) => Promise<FlowRequest>,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const { settings, answers } = await flowSettings(flags);
  const target = requireTarget(settings);
  const { server } = target;
  if (target.stdio !== undefined && flags.detach) {
    throw new CliError(
      ExitCode.usage,
      "--detach saves a flow to finish against the same server later, and a --stdio server lives only as long as this command; run without --detach",
    );
  }
  const connection = await connect({
    ...target,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
    tasks: flags.tasks !== false,
  });
  try {
    const request = await build(connection);
    await connection.client.connect();
    const policy = answerPolicy(flags, settings, answers, connection, terminal);
    const outcome = await driveFlow(connection.client, request, policy, {
      server,
      pending: new PendingStore(settings.home),
      tasks: new PendingTasks(settings.home),
      canDetach: target.stdio === undefined,
    }).catch(refusedArguments);
    return report(outcome, request, writer, terminal);
  } finally {
    await connection.close();
  }
}

/**
 * Finishes what --detach saved: a task the server runs (followed to its end), or a flow (see below).
 */
export async function resumeCommand(
  id: string,
  flags: FlowFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const task = await new PendingTasks(settings.home).find(id);
  if (task) return resumeTask(task, flags, terminal, writer);
  return resumeFlow(id, flags, terminal, writer);
}

/**
 * Finishes a flow saved by --detach: checks that its server can still open it, answers its questions,
 * then echoes the server's latest requestState byte for byte.
 */
async function resumeFlow(
  id: string,
  flags: FlowFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const { settings, answers } = await flowSettings(flags);
  if (settings.stdio !== undefined) {
    throw new CliError(
      ExitCode.usage,
      "resume finishes a flow with the server it was saved from; drop --stdio",
    );
  }
  const store = new PendingStore(settings.home);
  const flow: PendingFlow = await store.load(id);
  // A saved flow goes back to the server that asked; only a contradicting --server is an error.
  if (flags.server !== undefined && settings.server !== flow.server) {
    throw new CliError(
      ExitCode.usage,
      `pending flow ${id} belongs to ${flow.server}, not ${flags.server}; drop --server`,
    );
  }
  const request: FlowRequest = {
    method: flow.method,
    target: flow.target,
    ...(flow.arguments ? { arguments: flow.arguments } : {}),
  };
  // A saved flow goes on as the rounds it was: declaring tasks now would let the server turn its
  // next round into a task.
  const connection = await connect({
    server: flow.server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
    tasks: false,
  });
  try {
    await connection.client.connect();
    const policy = answerPolicy(flags, settings, answers, connection, terminal);
    const outcome = await driveFlow(connection.client, request, policy, {
      server: flow.server,
      pending: store,
      tasks: new PendingTasks(settings.home),
      canDetach: true,
      resume: flow,
    }).catch(refusedArguments);
    return report(outcome, request, writer, terminal);
  } finally {
    await connection.close();
  }
}

function refusedArguments(error: unknown): never {
  throw argumentRefusal(error) ?? error;
}
