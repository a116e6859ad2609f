import { requireTarget } from "../config/settings.js";
import { connect } from "../connection.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { driveFlow, type FlowOutcome, type FlowRequest } from "../flow/drive-flow.js";
import { waitingLines } from "../flow/waiting-questions.js";
import type { ResultWriter } from "../json-output.js";
import { type PendingFlow, PendingStore } from "../pending-store.js";
import { resultText } from "../result-text.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { argumentRefusal, argumentRefusalResult } from "./argument-refusal.js";
import { answerPolicy, type FlowFlags, flowSettings } from "./flow-options.js";

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
  });
  try {
    const request = await build(connection);
    await connection.client.connect();
    const policy = answerPolicy(flags, settings, answers, connection, terminal);
    const outcome = await driveFlow(connection.client, request, policy, {
      server,
      pending: new PendingStore(settings.home),
    }).catch(refusedArguments);
    return report(outcome, request, writer, terminal);
  } finally {
    await connection.close();
  }
}

/**
 * Finishes a flow saved by --detach: checks that its server can still open it, answers its questions,
 * then echoes the server's latest requestState byte for byte.
 */
export async function resumeFlow(
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
  const connection = await connect({
    server: flow.server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
  });
  try {
    await connection.client.connect();
    const policy = answerPolicy(flags, settings, answers, connection, terminal);
    const outcome = await driveFlow(connection.client, request, policy, {
      server: flow.server,
      pending: store,
      resume: flow,
    }).catch(refusedArguments);
    return report(outcome, request, writer, terminal);
  } finally {
    await connection.close();
  }
}

function report(
  outcome: FlowOutcome,
  request: FlowRequest,
  writer: ResultWriter,
  terminal: Terminal,
): ExitCodeValue {
  if (outcome.kind === "detached") {
    if (writer.json) {
      writer.document({
        status: "detached",
        id: outcome.id,
        waiting: outcome.waiting,
        questions: outcome.questions,
        resume: `roundtrip resume ${outcome.id}`,
      });
    } else {
      terminal.notice(
        `Saved as pending flow ${outcome.id}: the server waits for ${outcome.waiting.map((k) => `"${safeInline(k)}"`).join(", ")}.`,
      );
      for (const line of waitingLines(outcome.questions)) terminal.notice(line);
      terminal.notice(`Finish it with: roundtrip resume ${outcome.id}`);
    }
    return ExitCode.detached;
  }
  const isError = request.method === "tools/call" && outcome.result.isError === true;
  if (isError) {
    const refusal = argumentRefusalResult(outcome.result);
    if (refusal) throw refusal;
  }
  const { declined } = outcome;
  if (writer.json) {
    writer.document({
      status: "complete",
      result: outcome.result,
      ...(declined.length > 0 ? { declined } : {}),
    });
  } else {
    writer.text(resultText(request.method, outcome.result));
  }
  if (isError) return ExitCode.toolError;
  if (declined.length === 0) return ExitCode.ok;
  terminal.notice(
    `You declined or cancelled ${declined.map((k) => `"${k}"`).join(", ")}: the server finished without ${declined.length > 1 ? "those answers" : "that answer"} (exit code ${ExitCode.declined}).`,
  );
  return ExitCode.declined;
}

function refusedArguments(error: unknown): never {
  throw argumentRefusal(error) ?? error;
}
