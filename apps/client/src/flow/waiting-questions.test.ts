import { elicitForm, elicitUrl, type InputRequest } from "@roundtrip/sdk";
import { describe, expect, it } from "vitest";
import { waitingLines, waitingQuestions } from "./waiting-questions.js";

const requests: Record<string, InputRequest> = {
  tier: elicitForm("Pick a tier", { type: "object", properties: { tier: { type: "string" } } }),
  approval: elicitUrl("Approve release rel-1", "https://deploy.example.com/approve/rel-1"),
  poem: {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 },
  },
  roots: { method: "roots/list" },
};

describe("waiting questions", () => {
  it("says what each waiting key asks, with the page of a URL question, in the order waited on", () => {
    const questions = waitingQuestions(requests, ["approval", "tier", "poem", "roots"]);
    expect(questions).toEqual([
      {
        key: "approval",
        kind: "url",
        message: "Approve release rel-1",
        url: "https://deploy.example.com/approve/rel-1",
      },
      { key: "tier", kind: "form", message: "Pick a tier" },
      { key: "poem", kind: "sampling" },
      { key: "roots", kind: "roots" },
    ]);
    expect(waitingLines(questions)).toEqual([
      '  "approval": open https://deploy.example.com/approve/rel-1 (Approve release rel-1)',
      '  "tier": form (Pick a tier)',
      '  "poem": sampling',
      '  "roots": roots',
    ]);
  });

  it("describes only the keys that wait, and a key the saved round lacks as a form", () => {
    expect(waitingQuestions(requests, ["missing"])).toEqual([{ key: "missing", kind: "form" }]);
    expect(waitingQuestions(requests, [])).toEqual([]);
  });
});
