import {
  dereference,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
  Validator,
} from "@cfworker/json-schema";

/**
 * The dialects a raw JSON Schema may declare with `$schema`; without one it is 2020-12, as MCP's
 * default dialect. Each URI is read with or without its trailing empty fragment.
 */
const DIALECTS: Readonly<Record<string, SchemaDraft>> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

/** Keywords whose failure only says that a subschema failed: the subschema's own error says why. */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "$ref",
  "$recursiveRef",
  "allOf",
  "if",
  "dependentSchemas",
  "propertyNames",
  "false",
]);

/** Keywords whose message begins with the rejected number itself, which a message must not carry. */
const QUOTES_VALUE = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);

const UNPAIRED_SURROGATE = "a property name is not well-formed Unicode (it holds an unpaired surrogate)";

function dialectOf(schema: Schema, what: string): SchemaDraft {
  const declared = schema.$schema;
  if (declared === undefined) return "2020-12";
  const draft = typeof declared === "string" ? DIALECTS[declared.replace(/#$/, "")] : undefined;
  if (draft === undefined) {
    throw new TypeError(
      `The ${what} JSON Schema declares $schema ${JSON.stringify(declared)}, a dialect Roundtrip does not validate; omit $schema for JSON Schema 2020-12, or declare 2019-09, draft-07 or draft-04`,
    );
  }
  return draft;
}

/**
 * Every `$ref` must name a schema inside the document: references are never fetched, so one that
 * points elsewhere (a network URI) would fail every call, and is refused at registration instead of
 * being treated as permissive.
 */
function checkReferences(root: Schema, what: string): void {
  const lookup = dereference(root);
  for (const node of Object.values(lookup)) {
    if (typeof node !== "object" || node === null) continue;
    if (typeof node.$dynamicRef === "string") {
      throw new TypeError(
        `The ${what} JSON Schema uses $dynamicRef, which Roundtrip cannot validate; use $ref to a schema under $defs`,
      );
    }
    if (typeof node.$ref !== "string") continue;
    if (lookup[node.__absolute_ref__ ?? node.$ref] === undefined) {
      throw new TypeError(
        `The ${what} JSON Schema's $ref "${node.$ref}" does not resolve inside the schema, and references are never fetched; move the referenced schema under $defs and point to it with "#/$defs/..."`,
      );
    }
  }
}

function fieldOf(instanceLocation: string): string {
  return instanceLocation
    .replace(/^#\/?/, "")
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** Field-level problems, each naming the field; like zod's, they never carry the rejected value. */
function describeErrors(errors: readonly OutputUnit[]): string[] {
  const leaves = errors.filter((error) => !WRAPPERS.has(error.keyword));
  return (leaves.length > 0 ? leaves : errors.slice(-1)).map((error) => {
    const message = QUOTES_VALUE.has(error.keyword)
      ? error.error.replace(/^\S+ is /, "Value is ")
      : error.error;
    const field = fieldOf(error.instanceLocation);
    return field ? `field '${field}': ${message}` : message;
  });
}

/**
 * A validator for a raw JSON Schema, built once at registration: it returns the problems of a value,
 * none when the value is valid. The schema is validated as the dialect it declares (2020-12 by
 * default), with every keyword that dialect has (`if`/`then`/`else`, `dependentRequired`,
 * `unevaluatedProperties`, ...), by a validator that generates no code, so it also runs where `eval`
 * is not allowed. Throws a TypeError that says what to change.
 */
export function jsonSchemaValidator(
  schema: Readonly<Schema>,
  what: string,
  /** Stop at the first problem (enough to refuse arguments), or find them all (to report a result). */
  firstProblemOnly = true,
): (value: unknown) => string[] {
  const draft = dialectOf(schema, what);
  // The validator annotates the schema it is given: it gets its own copy, never the one tools/list shows.
  const own = structuredClone(schema) as Schema;
  checkReferences(own, what);
  const validator = new Validator(own, draft, firstProblemOnly);
  return (value) => {
    let result: ReturnType<Validator["validate"]>;
    try {
      result = validator.validate(value);
    } catch (error) {
      // The validator builds a URI for every property it visits, which an unpaired surrogate cannot be.
      if (error instanceof URIError) return [UNPAIRED_SURROGATE];
      throw error;
    }
    return result.valid ? [] : describeErrors(result.errors);
  };
}
