import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { InputRequests, InputResponses } from "../../protocol/schemas/input-required.js";
import type { ResultObject } from "../middleware.js";
import type { TaskControl } from "./task-run.js";

/** More rounds than any flow needs: a handler that keeps asking forever fails instead. */
const MAX_ROUNDS = 64;

/** What one round of a multi round-trip handler is given: the answers and the state of the last round. */
export interface RoundInput {
  inputResponses?: InputResponses;
  requestState?: string;
}

/**
 * Runs a multi round-trip handler inside a task: each InputRequiredResult it returns becomes the
 * task's questions, and the answers come back to it as the next round's `inputResponses`, with the
 * `requestState` it wrote (kept here, in plaintext, never sent); the first round gets undefined. The same handler answered a direct
 * call with those rounds on the wire. Keys are unique over a task, so a later round's keys are
 * suffixed on the wire and mapped back.
 */
export async function runRoundsInTask(
  task: TaskControl,
  round: (input: RoundInput | undefined) => Promise<ResultObject>,
): Promise<ResultObject> {
  // The first round runs on the call as the client sent it.
  let input: RoundInput | undefined;
  for (let index = 1; index <= MAX_ROUNDS; index++) {
    const result = await round(input);
    if (!isInputRequiredResult(result)) return result;
    const asked: InputRequests = result.inputRequests ?? {};
    const wireKey = (key: string) => (index === 1 ? key : `${key}#${index}`);
    const answers =
      Object.keys(asked).length === 0
        ? {}
        : await task.input(
            Object.fromEntries(Object.entries(asked).map(([key, value]) => [wireKey(key), value])),
          );
    input = {
      inputResponses: Object.fromEntries(
        Object.keys(asked).map((key) => [key, answers[wireKey(key)]]),
      ) as InputResponses,
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
  }
  throw new Error(`The handler asked for input more than ${MAX_ROUNDS} times in one task`);
}
