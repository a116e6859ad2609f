import { setTimeout as sleep } from "node:timers/promises";
import { tasksGet, toolsCall } from "../wire/mcp-request.js";
import { ADD_TOOL, addText } from "../wire/scenario.js";
import { type Flow, FlowError } from "./flow.js";
import { expectComplete, resultOf, timed } from "./rounds.js";

/** A task that is still running after this many polls is stuck, not slow. */
const MAX_POLLS = 1000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** The interval the server asks for, as a client honours it; a task carries none only if broken. */
function pollInterval(task: Record<string, unknown>): number {
  const ms = task.pollIntervalMs;
  if (typeof ms !== "number") throw new FlowError("the task carries no pollIntervalMs");
  return ms;
}

/**
 * add as a task: tools/call answers a task handle, then tasks/get, after the interval the server asks
 * for, until the task ends; its result is checked word for word. Every request is a round, and the
 * tasks/get are also the polls.
 */
export const addTask: Flow = async (client, seq) => {
  const a = seq % 1000;
  const b = 7;
  const callId = seq * 2;
  const call = await timed(
    client,
    callId,
    toolsCall(callId, { name: ADD_TOOL, arguments: { a, b } }, { tasks: true }),
  );
  let task = resultOf(call.answer, "tools/call");
  if (task.resultType !== "task") throw new FlowError(`tools/call: resultType ${String(task.resultType)}`);
  const taskId = task.taskId;
  if (typeof taskId !== "string") throw new FlowError("tools/call: the task has no taskId");
  const rounds = [call.ms];
  const polls: number[] = [];
  const pollId = seq * 2 + 1;
  // At least once: the handle never carries the result, even when the task is already done.
  do {
    if (polls.length === MAX_POLLS) throw new FlowError(`tasks/get: still ${String(task.status)}`);
    await sleep(pollInterval(task));
    const got = await timed(client, pollId, tasksGet(pollId, taskId));
    task = resultOf(got.answer, "tasks/get");
    rounds.push(got.ms);
    polls.push(got.ms);
  } while (!TERMINAL.has(String(task.status)));
  if (task.status !== "completed") throw new FlowError(`the task ended ${String(task.status)}`);
  const result = task.result;
  if (typeof result !== "object" || result === null) throw new FlowError("the completed task has no result");
  expectComplete(result as Record<string, unknown>, addText(a, b), "task result");
  return { rounds, polls };
};
