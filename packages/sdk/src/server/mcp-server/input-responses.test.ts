import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { InputResponses } from "../../protocol/schemas/input-required.js";
import { acceptedContent, InputResponseError, inputResponse } from "./input-responses.js";

const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });

const responses: InputResponses = {
  accepted: { action: "accept", content: { region: "eu-west-1" } },
  consent: { action: "accept" },
  declined: { action: "decline" },
  cancelled: { action: "cancel" },
  wrong: { action: "accept", content: { region: "mars-1" } },
  sampled: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" },
  roots: { roots: [{ uri: "file:///work" }] },
};

describe("reading the answers of a hand-built round", () => {
  it("tells every kind of answer apart", () => {
    expect(inputResponse(responses, "accepted")).toEqual({
      kind: "accepted",
      content: { region: "eu-west-1" },
    });
    expect(inputResponse(responses, "consent")).toEqual({ kind: "accepted", content: undefined });
    expect(inputResponse(responses, "declined")).toEqual({ kind: "declined" });
    expect(inputResponse(responses, "cancelled")).toEqual({ kind: "cancelled" });
    expect(inputResponse(responses, "sampled")).toMatchObject({ kind: "sampling", result: { model: "m" } });
    expect(inputResponse(responses, "roots")).toEqual({ kind: "roots", roots: [{ uri: "file:///work" }] });
    expect(inputResponse(responses, "absent")).toEqual({ kind: "missing" });
    expect(inputResponse(undefined, "accepted")).toEqual({ kind: "missing" });
  });

  it("returns accepted content validated against the form that was asked", () => {
    const content = acceptedContent(responses, "accepted", Region);
    expect(content).toEqual({ region: "eu-west-1" });
  });

  it("returns undefined when the user declined, cancelled or did not answer", () => {
    expect(acceptedContent(responses, "declined", Region)).toBeUndefined();
    expect(acceptedContent(responses, "cancelled", Region)).toBeUndefined();
    expect(acceptedContent(responses, "absent", Region)).toBeUndefined();
  });

  it("refuses accepted content that does not fit the form, naming the key and field", () => {
    expect(() => acceptedContent(responses, "wrong", Region)).toThrow(InputResponseError);
    expect(() => acceptedContent(responses, "wrong", Region)).toThrow(
      /inputResponses\["wrong"\] does not match the requested schema \(field 'region'/,
    );
    expect(() => acceptedContent(responses, "consent", Region)).toThrow(/without any content/);
  });

  it("validates against a raw elicitation schema as well", () => {
    const raw = {
      type: "object" as const,
      properties: { region: { type: "string" as const, enum: ["eu-west-1"] } },
    };
    expect(acceptedContent(responses, "accepted", raw)).toEqual({ region: "eu-west-1" });
    expect(() => acceptedContent(responses, "wrong", raw)).toThrow(
      /field 'region': is not one of the options/,
    );
  });
});
