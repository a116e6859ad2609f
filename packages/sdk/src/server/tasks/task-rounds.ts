import { setTimeout as sleep } from "node:timers/promises";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { InputRequests, InputResponses } from "../../protocol/schemas/input-required.js";
import type { ResultObject } from "../middleware.js";
import type { TaskControl } from "./task-run.js";

/** More rounds than any flow needs: a handler that keeps asking forever fails instead. */
const MAX_ROUNDS = 64;
/** Rounds that ask nothing (a handler waiting on something outside the call) are cheaper; still bounded. */
const MAX_WAITING_ROUNDS = 1000;
/** The pause before a round that follows one which asked nothing, as a client backs off before a retry. */
const WAIT_MS = 1000;

/** What one round of a multi round-trip handler is given: the answers and the state of the last round. */
export interface RoundInput {
  inputResponses?: InputResponses;
  requestState?: string;
}

/** Where a task's rounds stand, kept on the task so that a re-run of its body resumes there. */
interface RoundsCheckpoint {
  index: number;
  waits: number;
  input: RoundInput;
}

function isCheckpoint(value: unknown): value is RoundsCheckpoint {
  const checkpoint = value as Partial<RoundsCheckpoint> | undefined;
  return (
    Number.isSafeInteger(checkpoint?.index) &&
    Number.isSafeInteger(checkpoint?.waits) &&
    typeof checkpoint?.input === "object"
  );
}

/**
 * Runs a multi round-trip handler inside a task: each InputRequiredResult it returns becomes the
 * task's questions, and the answers come back to it as the next round's `inputResponses`, with the
 * `requestState` it wrote; the first round gets undefined. The same handler answered a direct call
 * with those rounds on the wire. Keys are unique over a task, so a later round's keys are suffixed on
 * the wire and mapped back. Before each later round, its input (answers and requestState, sealed) is
 * kept on the task: a re-run of the body on any instance resumes at that round, as a client's retry
 * of a round would, so a handler's effects need the same guard as on a retry (a once-ledger).
 */
export async function runRoundsInTask(
  task: TaskControl,
  round: (input: RoundInput | undefined) => Promise<ResultObject>,
): Promise<ResultObject> {
  const resumed = isCheckpoint(task.resumed) ? task.resumed : undefined;
  // The first round runs on the call as the client sent it.
  let input: RoundInput | undefined = resumed?.input;
  let waits = resumed?.waits ?? 0;
  for (let index = resumed?.index ?? 1; index <= MAX_ROUNDS; index++) {
    const result = await round(input);
    if (!isInputRequiredResult(result)) return result;
    const asked: InputRequests = result.inputRequests ?? {};
    const wireKey = (key: string) => (index === 1 ? key : `${key}#${index}`);
    let answers: InputResponses = {};
    if (Object.keys(asked).length === 0) {
      if (++waits > MAX_WAITING_ROUNDS) break;
      // Not counted: a wait is not a question.
      index -= 1;
      await sleep(WAIT_MS, undefined, { signal: task.signal });
    } else {
      answers = await task.input(
        Object.fromEntries(Object.entries(asked).map(([key, value]) => [wireKey(key), value])),
      );
    }
    input = {
      inputResponses: Object.fromEntries(
        Object.keys(asked).map((key) => [key, answers[wireKey(key)]]),
      ) as InputResponses,
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
    await task.checkpoint({ index: index + 1, waits, input } satisfies RoundsCheckpoint);
  }
  throw new Error(
    `The handler asked for input more than ${MAX_ROUNDS} times, or waited more than ${MAX_WAITING_ROUNDS} rounds, in one task`,
  );
}
