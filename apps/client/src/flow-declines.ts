import type { InputResponses } from "@roundtrip/sdk/protocol";

/** The keys of a round's answers that decline or cancel the question instead of answering it. */
export function declinedKeys(responses: InputResponses): string[] {
  return Object.entries(responses)
    .filter(([, response]) => {
      const action = (response as { action?: unknown }).action;
      return action === "decline" || action === "cancel";
    })
    .map(([key]) => key);
}
