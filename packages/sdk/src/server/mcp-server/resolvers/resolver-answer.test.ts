import { describe, expect, it } from "vitest";
import * as z from "zod";
import { consumeResponse, resolvedValue, restoreOutcome } from "./resolver-answer.js";
import { ResolverFailure } from "./resolver-failure.js";
import { ask, resolver } from "./resolvers.js";

const form = ask.elicit("Region?", z.object({ region: z.enum(["eu", "us"]) }));
const roots = ask.listRoots();

describe("restoreOutcome", () => {
  it("restores an accepted answer that still fits the question, and a decline of a form", () => {
    expect(restoreOutcome(form, { action: "accept", data: { region: "eu" }, q: "d" })).toEqual({
      action: "accept",
      data: { region: "eu" },
      value: { region: "eu" },
    });
    expect(restoreOutcome(form, { action: "decline", data: null, q: "d" })).toEqual({
      action: "decline",
      data: null,
      value: undefined,
    });
  });

  it("gives nothing for an answer that no longer fits, or a decline of a question that cannot be declined", () => {
    expect(restoreOutcome(form, { action: "accept", data: { region: "mars" }, q: "d" })).toBeUndefined();
    expect(restoreOutcome(roots, { action: "cancel", data: null, q: "d" })).toBeUndefined();
  });
});

describe("consumeResponse", () => {
  it("takes a fitting response", () => {
    expect(consumeResponse("r", form, { action: "accept", content: { region: "us" } })).toEqual({
      action: "accept",
      data: { region: "us" },
      value: { region: "us" },
    });
    expect(consumeResponse("r", form, { action: "cancel" })).toEqual({
      action: "cancel",
      data: null,
      value: undefined,
    });
    expect(consumeResponse("r", roots, { roots: [] })).toEqual({
      action: "accept",
      data: { roots: [] },
      value: { roots: [] },
    });
  });

  it("fails on a response that does not fit the question", () => {
    const fails = (question: typeof form | typeof roots, response: unknown, message: string) =>
      expect(() => consumeResponse("r", question, response as never)).toThrow(new ResolverFailure(message));
    fails(
      roots,
      { action: "accept" },
      "Resolver 'r' received a response of the wrong kind (expected a roots list)",
    );
    fails(form, { roots: [] }, "Resolver 'r' received a non-elicitation response");
    fails(form, { action: "accept" }, "Resolver 'r' received an accepted elicitation with no content");
    expect(() => consumeResponse("r", form, { action: "accept", content: { region: "mars" } })).toThrow(
      /^The answer to resolver 'r' does not match the requested schema/,
    );
  });
});

describe("resolvedValue", () => {
  const strict = resolver(() => form);
  const lenient = resolver(() => form, { onDecline: "outcome" });

  it("gives the value, or the outcome to a resolver that takes outcomes", () => {
    const accepted = { action: "accept" as const, data: {}, value: { region: "eu" } };
    expect(resolvedValue("r", strict, form, accepted)).toEqual({ region: "eu" });
    expect(resolvedValue("r", lenient, form, accepted)).toEqual({
      action: "accept",
      content: { region: "eu" },
    });
    expect(resolvedValue("r", lenient, form, { action: "decline", data: null, value: undefined })).toEqual({
      action: "decline",
    });
  });

  it("fails on a decline or cancel otherwise", () => {
    expect(() =>
      resolvedValue("r", strict, form, { action: "cancel", data: null, value: undefined }),
    ).toThrow(
      "Resolver 'r' could not resolve: the user cancelled the question. Call the tool again to be asked again",
    );
  });
});
