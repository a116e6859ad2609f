import type { ElicitCallback, ElicitParams } from "../../../client/callbacks.js";
import type { ElicitResult } from "../../../protocol/schemas/input-required.js";

/** A user at the client: answers each form by its message and remembers what it was asked, in order. */
export function scriptedUser(answer: (message: string, params: ElicitParams) => ElicitResult): {
  onElicit: ElicitCallback;
  asked: string[];
  keys: string[];
} {
  const asked: string[] = [];
  const keys: string[] = [];
  return {
    asked,
    keys,
    onElicit: (params, context) => {
      asked.push(params.message);
      keys.push(context.key);
      return answer(params.message, params);
    },
  };
}

export function accept(content: ElicitResult["content"]): ElicitResult {
  return { action: "accept", content };
}
