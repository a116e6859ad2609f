import type { TaskHandle } from "@roundtrip/sdk/client";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { FlowOutcome, FlowRequest } from "../flow/drive-flow.js";
import { waitingLines } from "../flow/waiting-questions.js";
import type { ResultWriter } from "../json-output.js";
import { resultText } from "../result-text.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { argumentRefusalResult } from "./argument-refusal.js";

/** What a call, prompt, read or resume ended with: the result, or what was saved and how to go on. */
export function report(
  outcome: FlowOutcome,
  request: FlowRequest,
  writer: ResultWriter,
  terminal: Terminal,
): ExitCodeValue {
  if (outcome.kind === "task-detached") return reportDetachedTask(outcome.id, outcome.task, writer, terminal);
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

/** A task left running on the server and saved: how to follow or stop it. */
export function reportDetachedTask(
  id: string,
  task: TaskHandle,
  writer: ResultWriter,
  terminal: Terminal,
): ExitCodeValue {
  if (writer.json) {
    writer.document({
      status: "detached",
      id,
      task: { status: task.status, ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}) },
      resume: `roundtrip resume ${id}`,
    });
  } else {
    const message = task.statusMessage ? ` (${safeInline(task.statusMessage)})` : "";
    terminal.notice(`Saved as task ${id}: the server goes on with it, ${task.status}${message}.`);
    terminal.notice(`Follow it with: roundtrip resume ${id}  (or stop it: roundtrip cancel ${id})`);
  }
  return ExitCode.detached;
}
