import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { ElicitationSchema } from "../../protocol/schemas/input-required.js";
import { assertSchema } from "../../test-support/wire-schema.js";
import { parseElicitContent, toElicitationSchema } from "./elicitation-schema.js";

describe("elicitation forms from zod", () => {
  it("converts a flat zod object to the protocol's restricted schema", () => {
    const schema = toElicitationSchema(
      z.object({
        region: z.enum(["eu-west-1", "us-east-1"]).describe("Where to run"),
        replicas: z.number().int().min(1).max(9).optional(),
        email: z.email(),
        confirm: z.boolean().default(false),
        tags: z.array(z.enum(["web", "batch"])),
        plan: z.literal("pro"),
      }),
    );
    expect(schema).toEqual({
      type: "object",
      properties: {
        region: { type: "string", enum: ["eu-west-1", "us-east-1"], description: "Where to run" },
        replicas: { type: "integer", minimum: 1, maximum: 9 },
        email: { type: "string", format: "email" },
        confirm: { type: "boolean", default: false },
        tags: { type: "array", items: { type: "string", enum: ["web", "batch"] } },
        plan: { type: "string", enum: ["pro"] },
      },
      required: ["region", "email", "tags", "plan"],
    });
    assertSchema("ElicitRequestFormParams", { mode: "form", message: "?", requestedSchema: schema });
  });

  it("refuses what a form cannot express, naming the field and what to do", () => {
    expect(() => toElicitationSchema(z.object({ address: z.object({ city: z.string() }) }))).toThrow(
      /Field 'address' is a nested object/,
    );
    expect(() => toElicitationSchema(z.object({ code: z.string().regex(/^[A-Z]+$/) }))).toThrow(
      /Field 'code' uses 'pattern'/,
    );
    expect(() => toElicitationSchema(z.object({ n: z.number().gt(0) }))).toThrow(/exclusiveMinimum/);
    expect(() => toElicitationSchema(z.object({ ids: z.array(z.number()) }))).toThrow(
      /array of something other/,
    );
    expect(() => toElicitationSchema(z.object({ either: z.union([z.string(), z.number()]) }))).toThrow(
      /not a single primitive type/,
    );
  });

  it("returns one converted schema per zod object", () => {
    const form = z.object({ name: z.string() });
    expect(toElicitationSchema(form)).toBe(toElicitationSchema(form));
  });
});

describe("checking an accepted form's content", () => {
  const raw: ElicitationSchema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2 },
      size: { type: "integer", minimum: 1, maximum: 3 },
      tier: {
        type: "string",
        oneOf: [
          { const: "free", title: "Free" },
          { const: "pro", title: "Pro" },
        ],
      },
      tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 1 },
      site: { type: "string", format: "uri" },
      ok: { type: "boolean" },
    },
    required: ["name"],
  };

  it("accepts conforming content and keeps only the fields that were asked", () => {
    expect(
      parseElicitContent(raw, { name: "Al", size: 2, tier: "pro", tags: ["a"], site: "https://x.dev", x: 1 }),
    ).toEqual({ ok: true, value: { name: "Al", size: 2, tier: "pro", tags: ["a"], site: "https://x.dev" } });
  });

  it("names every field that does not fit, without echoing the values", () => {
    const parsed = parseElicitContent(raw, {
      size: 2.5,
      tier: "gold",
      tags: ["a", "b"],
      site: "not a uri secret",
      ok: "yes",
    });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems).toEqual([
      "field 'name': missing",
      "field 'size': expected an integer",
      "field 'tier': is not one of the options",
      "field 'tags': has too many items",
      "field 'site': is not a valid uri",
      "field 'ok': expected a boolean",
    ]);
    expect(problems.join(" ")).not.toContain("secret");
  });

  it("validates with zod when the form was a zod object, returning its output type", () => {
    const form = z.object({ count: z.coerce.number().int() });
    expect(parseElicitContent(form, { count: "3" })).toEqual({ ok: true, value: { count: 3 } });
    expect(parseElicitContent(form, { count: "x" }).ok).toBe(false);
    expect(parseElicitContent(form, "text").ok).toBe(false);
  });
});
