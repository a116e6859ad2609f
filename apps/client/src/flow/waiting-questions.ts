import type { InputRequest } from "@roundtrip/sdk/protocol";
import { safeInline } from "../terminal/safe-text.js";

/** One question a detached flow waits on, as `pending` and the detach notice describe it. */
export interface WaitingQuestion {
  key: string;
  kind: "form" | "url" | "sampling" | "roots";
  /** The server's own words, when the question has any. */
  message?: string;
  /** URL mode: the page the person has to visit before resuming. */
  url?: string;
}

/**
 * What each waiting key asks. The URL matters most: a flow detached on a URL-mode question can only
 * go on once somebody has been to that page, so it must not be hidden in the saved file.
 */
export function waitingQuestions(
  requests: Readonly<Record<string, InputRequest>>,
  waiting: readonly string[],
): WaitingQuestion[] {
  return waiting.map((key) => {
    const request = requests[key];
    if (request === undefined) return { key, kind: "form" };
    if (request.method === "elicitation/create") {
      const { params } = request;
      return params.mode === "url"
        ? { key, kind: "url", message: params.message, url: params.url }
        : { key, kind: "form", message: params.message };
    }
    if (request.method === "sampling/createMessage") return { key, kind: "sampling" };
    return { key, kind: "roots" };
  });
}

/** One line per question, indented under the flow it belongs to; the server's words stay on it. */
export function waitingLines(questions: readonly WaitingQuestion[]): string[] {
  return questions.map((q) => {
    const what = q.url !== undefined ? `open ${safeInline(q.url)}` : q.kind;
    return `  "${safeInline(q.key)}": ${what}${q.message ? ` (${safeInline(q.message)})` : ""}`;
  });
}
