import type { CompleteParams, CompleteResult } from "@roundtrip/sdk/protocol";
import type { Complete } from "@roundtrip/sdk/server";

/** Argument suggestions for the fixture's prompt and template, filtered by what the user typed so far. */

const SUGGESTIONS: Readonly<Record<string, readonly string[]>> = {
  "ref/prompt test_prompt_with_arguments arg1": ["paris", "park", "party", "test", "testing"],
  "ref/prompt test_prompt_with_arguments arg2": ["world", "word", "work"],
  "ref/resource test://template/{id}/data id": ["1", "12", "123", "456"],
};

export function completeArgument(params: CompleteParams): Complete<CompleteResult> {
  const target = params.ref.type === "ref/prompt" ? params.ref.name : params.ref.uri;
  const candidates = SUGGESTIONS[`${params.ref.type} ${target} ${params.argument.name}`] ?? [];
  const values = candidates.filter((value) => value.startsWith(params.argument.value));
  return { completion: { values, total: values.length, hasMore: false } };
}
