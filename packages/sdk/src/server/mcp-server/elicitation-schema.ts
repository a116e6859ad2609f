import * as z from "zod";
import type { ElicitationSchema, ElicitResult } from "../../protocol/schemas/input-required.js";
import { describeIssues, isZodSchema, type JsonSchema, type ParseOutcome } from "./schema.js";

/** A form to ask the user for: a zod object, or the protocol's flat elicitation schema as it is. */
export type ElicitationSchemaLike = z.ZodObject | ElicitationSchema;

/** The values an accepted form carries. */
export type ElicitContent = NonNullable<ElicitResult["content"]>;

/** The content an accepted answer to this form holds once validated. */
export type ElicitAnswer<S> = S extends z.ZodType ? z.output<S> : ElicitContent;

const COMMON = ["type", "title", "description", "default"];
const ALLOWED: Record<string, readonly string[]> = {
  string: [...COMMON, "minLength", "maxLength", "format", "enum", "enumNames", "oneOf"],
  number: [...COMMON, "minimum", "maximum"],
  integer: [...COMMON, "minimum", "maximum"],
  boolean: COMMON,
  array: [...COMMON, "items", "minItems", "maxItems"],
};
const FORMATS = new Set(["email", "uri", "date", "date-time"]);

function refuse(field: string, why: string): never {
  throw new TypeError(
    `Elicitation forms are flat: strings, numbers, booleans and enums only. Field '${field}' ${why}; ask for it differently, or split it into plain fields`,
  );
}

/** One property of a zod-generated schema, reduced to what the protocol's primitive schemas allow. */
function primitiveProperty(field: string, source: JsonSchema): JsonSchema {
  const property: JsonSchema = { ...source };
  if (typeof property.const === "string" && property.enum === undefined) {
    property.enum = [property.const];
    delete property.const;
  }
  // zod writes a regex next to every format; the format alone is what clients understand.
  if (property.pattern !== undefined && property.format !== undefined) delete property.pattern;
  const type = property.type;
  if (typeof type !== "string" || !(type in ALLOWED)) {
    refuse(field, type === "object" ? "is a nested object" : "is not a single primitive type");
  }
  const allowed = ALLOWED[type] ?? [];
  for (const keyword of Object.keys(property)) {
    if (!allowed.includes(keyword)) refuse(field, `uses '${keyword}', which forms cannot express`);
  }
  if (property.format !== undefined && !FORMATS.has(String(property.format))) {
    refuse(field, `has format '${String(property.format)}'; forms support email, uri, date and date-time`);
  }
  if (type === "array") {
    const items = property.items as JsonSchema | undefined;
    const isEnum = items?.type === "string" && Array.isArray(items.enum);
    if (!isEnum) refuse(field, "is an array of something other than enum strings");
    property.items = { type: "string", enum: items?.enum };
  }
  return property;
}

const converted = new WeakMap<z.ZodObject, ElicitationSchema>();

/**
 * The protocol's `requestedSchema` for a form. A zod object is converted (once, then cached) and
 * refused with a TypeError when it is not a flat form; a raw elicitation schema is used as it is.
 */
export function toElicitationSchema(schema: ElicitationSchemaLike): ElicitationSchema {
  if (!isZodSchema(schema)) return schema;
  const cached = converted.get(schema);
  if (cached) return cached;
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" });
  const properties: Record<string, JsonSchema> = {};
  for (const [field, property] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
    properties[field] = primitiveProperty(field, property);
  }
  const result = { type: "object", properties } as ElicitationSchema;
  if (Array.isArray(json.required) && json.required.length > 0) result.required = [...json.required];
  converted.set(schema, result);
  return result;
}

function checkValue(schema: JsonSchema, value: unknown): string | undefined {
  const type = schema.type;
  if (type === "array") {
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
      return "expected a list of strings";
    const options = (schema.items as JsonSchema | undefined)?.enum;
    if (Array.isArray(options) && value.some((item) => !options.includes(item)))
      return "contains an unknown option";
    if (typeof schema.minItems === "number" && value.length < schema.minItems) return "has too few items";
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return "has too many items";
    return undefined;
  }
  if (type === "boolean") return typeof value === "boolean" ? undefined : "expected a boolean";
  if (type === "number" || type === "integer") {
    if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number";
    if (type === "integer" && !Number.isInteger(value)) return "expected an integer";
    if (typeof schema.minimum === "number" && value < schema.minimum) return "is below the minimum";
    if (typeof schema.maximum === "number" && value > schema.maximum) return "is above the maximum";
    return undefined;
  }
  if (typeof value !== "string") return "expected a string";
  const options = Array.isArray(schema.enum)
    ? schema.enum
    : Array.isArray(schema.oneOf)
      ? (schema.oneOf as JsonSchema[]).map((option) => option.const)
      : undefined;
  if (options && !options.includes(value)) return "is not one of the options";
  if (typeof schema.minLength === "number" && value.length < schema.minLength) return "is too short";
  if (typeof schema.maxLength === "number" && value.length > schema.maxLength) return "is too long";
  return checkFormat(schema.format, value);
}

function checkFormat(format: unknown, value: string): string | undefined {
  const ok =
    format === "email"
      ? /^[^\s@]+@[^\s@]+$/.test(value)
      : format === "uri"
        ? URL.canParse(value)
        : format === "date"
          ? /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
          : format === "date-time"
            ? !Number.isNaN(Date.parse(value))
            : true;
  return ok ? undefined : `is not a valid ${String(format)}`;
}

/** Validates a raw elicitation schema's answer; only the fields the form asked for are kept. */
function checkRawContent(schema: ElicitationSchema, content: ElicitContent): ParseOutcome<ElicitContent> {
  const problems: string[] = [];
  const kept: ElicitContent = {};
  const required = new Set(schema.required ?? []);
  for (const [field, property] of Object.entries(schema.properties)) {
    const value = content[field];
    if (value === undefined) {
      if (required.has(field)) problems.push(`field '${field}': missing`);
      continue;
    }
    const problem = checkValue(property as JsonSchema, value);
    if (problem) problems.push(`field '${field}': ${problem}`);
    else kept[field] = value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: kept };
}

/** Checks an accepted form's content against the form that was asked. */
export function parseElicitContent<S extends ElicitationSchemaLike>(
  schema: S,
  content: unknown,
): ParseOutcome<ElicitAnswer<S>> {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    return { ok: false, problems: ["the content is not an object"] };
  }
  if (isZodSchema(schema)) {
    const parsed = schema.safeParse(content);
    return parsed.success
      ? { ok: true, value: parsed.data as ElicitAnswer<S> }
      : { ok: false, problems: describeIssues(parsed.error.issues) };
  }
  return checkRawContent(schema, content as ElicitContent) as ParseOutcome<ElicitAnswer<S>>;
}
