import * as z from "zod";
import { jsonSchemaValidator } from "../../protocol/json-schema-validation.js";

/** A JSON Schema document, as a plain object. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * What a registration accepts as a schema: a zod (v4) schema, or a raw JSON Schema object (2020-12
 * unless its `$schema` says otherwise), validated as JSON Schema rather than converted to zod.
 */
export type SchemaLike = z.ZodType | JsonSchema;

/** The value a schema admits: zod's output type, or a plain object for a raw JSON Schema. */
export type Infer<S> = S extends z.ZodType ? z.output<S> : Record<string, unknown>;

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** A schema converted once, at registration: its JSON Schema for listings and its validator for calls. */
export interface CompiledSchema<T = unknown> {
  readonly jsonSchema: JsonSchema;
  parse(value: unknown): ParseOutcome<T>;
}

export function isZodSchema(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

/** Field-level problems, each naming the field; messages never carry the rejected value. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unexpected field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")}`;
    }
    return path ? `field '${path}': ${issue.message}` : issue.message;
  });
}

function zodParser<T>(schema: z.ZodType): (value: unknown) => ParseOutcome<T> {
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success
      ? { ok: true, value: parsed.data as T }
      : { ok: false, problems: describeIssues(parsed.error.issues) };
  };
}

export interface CompileOptions {
  /** Named in every error, e.g. "tool 'provision' input". */
  what: string;
  /** Require `type: "object"` at the root, as tool inputs and prompt arguments must have. */
  objectRoot: boolean;
  /** Which side of a transforming zod schema the JSON Schema describes. */
  io: "input" | "output";
}

/** Converts a schema once; throws a TypeError that says what to change when it cannot be used. */
export function compileSchema<T>(schema: SchemaLike, options: CompileOptions): CompiledSchema<T> {
  const { what } = options;
  let jsonSchema: JsonSchema;
  let parse: (value: unknown) => ParseOutcome<T>;
  if (isZodSchema(schema)) {
    parse = zodParser<T>(schema);
    try {
      jsonSchema = z.toJSONSchema(schema, {
        target: "draft-2020-12",
        io: options.io,
        unrepresentable: "throw",
      }) as JsonSchema;
    } catch (error) {
      throw new TypeError(
        `The ${what} schema cannot be expressed as JSON Schema (${(error as Error).message}); use only JSON-representable types such as strings, numbers, booleans, arrays and objects`,
      );
    }
  } else if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
    jsonSchema = structuredClone(schema);
    const problemsOf = jsonSchemaValidator(jsonSchema, what);
    parse = (value) => {
      const problems = problemsOf(value);
      return problems.length === 0 ? { ok: true, value: value as T } : { ok: false, problems };
    };
  } else {
    throw new TypeError(`The ${what} schema must be a zod schema or a JSON Schema object`);
  }
  if (options.objectRoot && jsonSchema.type !== "object") {
    throw new TypeError(
      `The ${what} schema must describe an object (JSON Schema "type": "object" at the root), such as z.object({...})`,
    );
  }
  return { jsonSchema, parse };
}
