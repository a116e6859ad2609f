import { describe, expect, it } from "vitest";
import { elicitForm } from "../protocol/input-required.js";
import { checkInputRequest } from "./input-request-check.js";

const FORM = { type: "object" as const, properties: { name: { type: "string" as const } } };

describe("checkInputRequest", () => {
  it("gives the same verdict for a request it has seen as for a fresh one", () => {
    const question = elicitForm("Name?", FORM);
    expect(checkInputRequest(question)).toEqual(question);
    expect(checkInputRequest(structuredClone(question))).toEqual(question);
  });

  it("judges a mutated object by what it now says, not by what it said before", () => {
    const question: Record<string, unknown> = { ...elicitForm("Name?", FORM) };
    expect(checkInputRequest(question)).toBeDefined();
    question.method = "elicitation/unknown";
    expect(checkInputRequest(question)).toBeUndefined();
    expect(checkInputRequest(question)).toBeUndefined();
  });

  it("refuses what is no request at all", () => {
    expect(checkInputRequest(undefined)).toBeUndefined();
    expect(checkInputRequest({ method: "roots/list", params: 1n })).toBeUndefined();
  });
});
