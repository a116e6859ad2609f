import { describe, expect, it } from "vitest";
import { contentProblem, defaultContent, displayValue, fieldProblem, formFields } from "./form-fields.js";

const fields = formFields({
  type: "object",
  properties: {
    site: { type: "string", format: "uri" },
    when: { type: "string", format: "date-time" },
    count: { type: "integer", minimum: 1, maximum: 3, default: 2 },
    level: { type: "string", enum: ["lo", "hi"], enumNames: ["Low", "High"], default: "lo" },
    tier: { type: "string", oneOf: [{ const: "t1", title: "Tier one" }] },
    picks: { type: "array", items: { anyOf: [{ const: "x", title: "Ex" }] }, default: ["x"] },
  },
  required: ["count", "level"],
});
const field = (name: string) => fields.find((f) => f.name === name)!;

describe("the restricted elicitation schema as form fields", () => {
  it("reads titles from oneOf, anyOf and the legacy enumNames", () => {
    expect(field("level")).toMatchObject({
      kind: "select",
      options: [
        { value: "lo", title: "Low" },
        { value: "hi", title: "High" },
      ],
    });
    expect(field("tier")).toMatchObject({
      kind: "select",
      required: false,
      options: [{ value: "t1", title: "Tier one" }],
    });
    expect(field("picks")).toMatchObject({ kind: "multiselect", options: [{ value: "x", title: "Ex" }] });
    expect(displayValue(field("picks"), ["x"])).toBe("Ex");
  });

  it("checks formats", () => {
    expect(fieldProblem(field("site"), "https://example.com")).toBeUndefined();
    expect(fieldProblem(field("site"), "example dot com")).toMatch(/absolute URI/);
    expect(fieldProblem(field("when"), "2026-07-28T09:30:00Z")).toBeUndefined();
    expect(fieldProblem(field("when"), "2026-07-28 09:30")).toMatch(/date and time/);
    expect(fieldProblem(field("count"), 4)).toBe("must be at most 3");
  });

  it("checks whole content: unknown fields, required fields, and defaults that satisfy the form", () => {
    expect(contentProblem(fields, { count: 1, level: "hi", extra: 1 })).toMatch(/"extra" is not a field/);
    expect(contentProblem(fields, { level: "hi" })).toBe('"count" is required');
    // Every problem in one message, not one per attempt.
    expect(contentProblem(fields, { count: 4, extra: 1 })).toBe(
      '"extra" is not a field of this form (fields: site, when, count, level, tier, picks); ' +
        '"count" must be at most 3; "level" is required',
    );
    expect(defaultContent(fields)).toEqual({ count: 2, level: "lo", picks: ["x"] });
    expect(
      defaultContent(formFields({ type: "object", properties: { n: { type: "string" } }, required: ["n"] })),
    ).toBeUndefined();
  });
});

describe("problems never repeat the answer", () => {
  it("names the field and the rule, not the value", () => {
    const multi = formFields({
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
    })[0]!;
    const problem = fieldProblem(multi, ["secret-looking-value"]);
    expect(problem).toBe("has a value that is not a choice; choose from a, b");
    expect(problem).not.toContain("secret-looking-value");
  });
});
