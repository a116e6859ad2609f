import type { ElicitationSchema, PrimitiveSchemaDefinition } from "@roundtrip/sdk/protocol";

/**
 * The restricted elicitation schema (flat object of primitives) turned into fields a prompt or an
 * answers file can fill, with one validation used by both: whatever the person typed and whatever a
 * script supplied is checked against the same rules before it is sent.
 */

export type FieldValue = string | number | boolean | string[];

export interface FieldOption {
  value: string;
  /** What the person sees: the option's title, or the value itself. */
  title: string;
}

interface FieldBase {
  name: string;
  /** The schema's title, or the property name. */
  label: string;
  description?: string;
  required: boolean;
}

export type FormField =
  | (FieldBase & {
      kind: "string";
      format?: "email" | "uri" | "date" | "date-time";
      minLength?: number;
      maxLength?: number;
      default?: string;
    })
  | (FieldBase & { kind: "number" | "integer"; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: "boolean"; default?: boolean })
  | (FieldBase & { kind: "select"; options: FieldOption[]; default?: string })
  | (FieldBase & {
      kind: "multiselect";
      options: FieldOption[];
      minItems?: number;
      maxItems?: number;
      default?: string[];
    });

function fieldOf(name: string, schema: PrimitiveSchemaDefinition, required: boolean): FormField {
  const s = schema as Record<string, unknown>;
  const base: FieldBase = {
    name,
    label: typeof s.title === "string" && s.title !== "" ? s.title : name,
    required,
    ...(typeof s.description === "string" ? { description: s.description } : {}),
  };
  const num = (key: string) => (typeof s[key] === "number" ? { [key]: s[key] as number } : {});
  if (s.type === "array") {
    const items = (s.items ?? {}) as { enum?: string[]; anyOf?: { const: string; title: string }[] };
    const options = items.anyOf
      ? items.anyOf.map((o) => ({ value: o.const, title: o.title }))
      : (items.enum ?? []).map((value) => ({ value, title: value }));
    return {
      ...base,
      kind: "multiselect",
      options,
      ...num("minItems"),
      ...num("maxItems"),
      ...(Array.isArray(s.default) ? { default: s.default as string[] } : {}),
    };
  }
  if (s.type === "string" && (Array.isArray(s.enum) || Array.isArray(s.oneOf))) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as string[]) : undefined;
    const options = Array.isArray(s.oneOf)
      ? (s.oneOf as { const: string; title: string }[]).map((o) => ({ value: o.const, title: o.title }))
      : (s.enum as string[]).map((value, i) => ({ value, title: names?.[i] ?? value }));
    return {
      ...base,
      kind: "select",
      options,
      ...(typeof s.default === "string" ? { default: s.default } : {}),
    };
  }
  if (s.type === "string") {
    return {
      ...base,
      kind: "string",
      ...(typeof s.format === "string" ? { format: s.format as "email" } : {}),
      ...num("minLength"),
      ...num("maxLength"),
      ...(typeof s.default === "string" ? { default: s.default } : {}),
    };
  }
  if (s.type === "number" || s.type === "integer") {
    return {
      ...base,
      kind: s.type,
      ...num("minimum"),
      ...num("maximum"),
      ...(typeof s.default === "number" ? { default: s.default } : {}),
    };
  }
  return { ...base, kind: "boolean", ...(typeof s.default === "boolean" ? { default: s.default } : {}) };
}

export function formFields(schema: ElicitationSchema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) =>
    fieldOf(name, property, required.has(name)),
  );
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function formatProblem(format: string, value: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(value) ? undefined : "must be an email address, like name@example.com";
    case "uri":
      try {
        new URL(value);
        return undefined;
      } catch {
        return "must be an absolute URI, like https://example.com/page";
      }
    case "date": {
      const match = DATE.exec(value);
      const valid = match && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
      const date = valid ? new Date(`${value}T00:00:00Z`) : undefined;
      // Date.parse rolls 2026-02-30 over to March; a real calendar date round-trips unchanged.
      return date && date.toISOString().slice(0, 10) === value ? undefined : "must be a date, YYYY-MM-DD";
    }
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : "must be a date and time, like 2026-07-28T09:30:00Z";
    default:
      return undefined;
  }
}

/** Why `value` does not fit `field`, or undefined when it does. */
export function fieldProblem(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      if (field.minLength !== undefined && value.length < field.minLength)
        return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `must be at most ${field.maxLength} characters`;
      return field.format ? formatProblem(field.format, value) : undefined;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "select":
      return typeof value === "string" && field.options.some((o) => o.value === value)
        ? undefined
        : `must be one of ${field.options.map((o) => o.value).join(", ")}`;
    case "multiselect": {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
        return "must be a list of choices";
      // The offending value is not repeated: answers never go to the terminal or the logs.
      if (value.some((v) => !field.options.some((o) => o.value === v)))
        return `has a value that is not a choice; choose from ${field.options.map((o) => o.value).join(", ")}`;
      if (new Set(value).size !== value.length) return "must not repeat a choice";
      if (field.minItems !== undefined && value.length < field.minItems)
        return `needs at least ${field.minItems} choice(s)`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `allows at most ${field.maxItems} choice(s)`;
      return undefined;
    }
  }
}

/**
 * Checks a whole form's content: every required field present, every present field valid, no strangers.
 * Says every problem, joined with "; ".
 */
export function contentProblem(
  fields: readonly FormField[],
  content: Record<string, unknown>,
): string | undefined {
  // Every problem at once: an answers file fixed one field per run costs a round trip per mistake.
  const problems: string[] = [];
  for (const name of Object.keys(content)) {
    if (!fields.some((f) => f.name === name)) {
      problems.push(
        `"${name}" is not a field of this form (fields: ${fields.map((f) => f.name).join(", ")})`,
      );
    }
  }
  for (const field of fields) {
    const value = content[field.name];
    if (value === undefined) {
      if (field.required) problems.push(`"${field.name}" is required`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems.push(`"${field.name}" ${problem}`);
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}

/** The content a form would send with every field at its default, if that satisfies the form. */
export function defaultContent(fields: readonly FormField[]): Record<string, FieldValue> | undefined {
  const content: Record<string, FieldValue> = {};
  for (const field of fields) {
    if (field.default !== undefined) content[field.name] = field.default;
  }
  return contentProblem(fields, content) === undefined ? content : undefined;
}

/** How a value reads in the review step. */
export function displayValue(field: FormField, value: FieldValue | undefined): string {
  if (value === undefined) return "(not set)";
  const title = (v: string) =>
    field.kind === "select" || field.kind === "multiselect"
      ? (field.options.find((o) => o.value === v)?.title ?? v)
      : v;
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : value.map(title).join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return typeof value === "string" ? title(value) : String(value);
}
