import { McpError } from "./errors.js";
import type { Tool } from "./schemas/tools.js";

/** Request metadata headers of Streamable HTTP 2026-07-28 (lower-case, as Node presents them). */
export const HEADER = {
  protocolVersion: "mcp-protocol-version",
  method: "mcp-method",
  name: "mcp-name",
  paramPrefix: "mcp-param-",
  /** 2025-era sessions: assigned by the server in the initialize response, sent on every request after. */
  sessionId: "mcp-session-id",
  /** 2025-era resumability: the last SSE event id a reconnecting client saw. */
  lastEventId: "last-event-id",
} as const;

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const SAFE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const RFC9110_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Plain when safe ASCII; otherwise (or when it looks like the sentinel itself) base64 in the sentinel. */
export function encodeHeaderValue(value: string): string {
  if (value === "" || (SAFE_ASCII.test(value) && !value.startsWith("=?base64?"))) return value;
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The value a header carries, or undefined when it is malformed (bad characters, bad base64, bad UTF-8). */
export function decodeHeaderValue(raw: string): string | undefined {
  const sentinel = SENTINEL.exec(raw);
  if (sentinel) {
    const b64 = sentinel[1] ?? "";
    const bytes = Buffer.from(b64, "base64");
    if (bytes.toString("base64") !== b64) return undefined;
    try {
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  return raw === "" || SAFE_ASCII.test(raw) ? raw : undefined;
}

export interface HeaderParam {
  /** The `{Name}` of `Mcp-Param-{Name}`, as the schema spells it. */
  header: string;
  /** Property names from the argument root to the annotated value. */
  path: string[];
  type: "string" | "integer" | "boolean";
}

type SchemaNode = Record<string, unknown>;

/**
 * The JSON Schema keywords (2020-12, and draft-07's spellings) whose values are subschemas: one, a
 * list, or a map by name. Every other keyword holds data (`const`, `default`, `enum`, `examples`),
 * where an `x-mcp-header` key is a value, not an annotation.
 */
const ONE_SCHEMA = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
const SCHEMA_LISTS = ["allOf", "anyOf", "items", "oneOf", "prefixItems"] as const;
const SCHEMA_MAPS = [
  "$defs",
  "definitions",
  "dependencies",
  "dependentSchemas",
  "patternProperties",
] as const;

/** Deeper than any real input schema; a peer's deeper one is refused rather than walked. */
const MAX_SCHEMA_DEPTH = 64;

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A subschema, and the JSON Pointer segments that lead to it from its parent. */
type Child = [schema: SchemaNode, pointer: string[]];

/** The subschemas of `node` that are not its `properties`: none of them may carry an annotation. */
function otherSubschemas(node: SchemaNode): Child[] {
  const children: Child[] = [];
  for (const keyword of ONE_SCHEMA) {
    const value = node[keyword];
    if (isSchemaNode(value)) children.push([value, [keyword]]);
  }
  for (const keyword of SCHEMA_LISTS) {
    const value = node[keyword];
    if (!Array.isArray(value)) continue;
    value.forEach((item, index) => {
      if (isSchemaNode(item)) children.push([item, [keyword, String(index)]]);
    });
  }
  for (const keyword of SCHEMA_MAPS) {
    const value = node[keyword];
    if (!isSchemaNode(value)) continue;
    for (const [name, item] of Object.entries(value)) {
      if (isSchemaNode(item)) children.push([item, [keyword, name]]);
    }
  }
  return children;
}

/**
 * The `x-mcp-header` annotations of a tool, checked as the protocol requires: each a unique HTTP
 * token, on a string, integer or boolean property, reached from the root through `properties` alone.
 * One anywhere else (under `items`, a combinator, `if`/`then`/`else`, `$defs` behind a `$ref`) names
 * no single argument a header could mirror. Returns an error message for a tool that breaks a rule:
 * clients drop such tools.
 */
export function headerParamsOf(tool: Pick<Tool, "inputSchema">): HeaderParam[] | string {
  const found: HeaderParam[] = [];
  const seen = new Set<string>();
  /** `path` is the property names from the root while only `properties` led here, undefined after. */
  const visit = (
    node: SchemaNode,
    pointer: string[],
    path: string[] | undefined,
    depth: number,
  ): string | undefined => {
    if (depth > MAX_SCHEMA_DEPTH) return `its inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
    const annotation = node["x-mcp-header"];
    if (annotation !== undefined) {
      const at = `/${pointer.join("/")}`;
      if (path === undefined || path.length === 0) {
        return `x-mcp-header at ${at} is not on a property reached through "properties" alone`;
      }
      if (typeof annotation !== "string" || !RFC9110_TOKEN.test(annotation)) {
        return `x-mcp-header on "${path.join(".")}" must be a non-empty HTTP token`;
      }
      if (seen.has(annotation.toLowerCase())) return `x-mcp-header "${annotation}" is used twice`;
      const type = node.type;
      if (type !== "string" && type !== "integer" && type !== "boolean") {
        return `x-mcp-header "${annotation}" must annotate a string, integer or boolean property`;
      }
      seen.add(annotation.toLowerCase());
      found.push({ header: annotation, path, type });
    }
    const properties = node.properties;
    if (isSchemaNode(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        if (!isSchemaNode(child)) continue;
        const failure = visit(child, [...pointer, "properties", key], path && [...path, key], depth + 1);
        if (failure) return failure;
      }
    }
    for (const [child, segments] of otherSubschemas(node)) {
      const failure = visit(child, [...pointer, ...segments], undefined, depth + 1);
      if (failure) return failure;
    }
    return undefined;
  };
  const root = tool.inputSchema as unknown;
  return (isSchemaNode(root) ? visit(root, [], [], 0) : undefined) ?? found;
}

/**
 * The argument at `path`, own properties only: the arguments are the peer's JSON, and a path segment
 * such as `__proto__` or `constructor` must find the argument or nothing, never the prototype.
 */
function valueAt(args: Record<string, unknown> | undefined, path: string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A JSON number literal: no leading zeros, no `+`, which some readers take for octal or a string. */
const DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether an integer parameter's header text is numerically the body's value, as Streamable HTTP's
 * Server Validation asks ("42.0" and "42" are equal). Compared digit by digit rather than through
 * Number(), which would round "42.0000000000000001" to 42 and agree with a value the header does not carry.
 */
function integerHeaderMatches(text: string, value: unknown): boolean {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) return false;
  const match = DECIMAL.exec(text);
  if (!match) return false;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  // The literal is `significant × 10^scale`, with neither leading nor trailing zeros in `significant`.
  const digits = (whole + fraction).replace(/^0+/, "");
  if (digits === "") return value === 0;
  const significant = digits.replace(/0+$/, "");
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  if (scale < 0 || (sign === "-") !== value < 0) return false;
  const expected = String(Math.abs(value));
  return significant.length + scale === expected.length && expected === significant + "0".repeat(scale);
}

/** The wire form of one argument value, or undefined when there is nothing to send. */
export function formatParamValue(value: unknown, type: HeaderParam["type"]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (type === "boolean" && typeof value === "boolean") return String(value);
  if (
    type === "integer" &&
    typeof value === "number" &&
    Number.isInteger(value) &&
    Math.abs(value) <= MAX_SAFE
  ) {
    return String(value);
  }
  if (type === "string" && typeof value === "string") return encodeHeaderValue(value);
  return undefined;
}

/** The `Mcp-Param-*` headers a client sends for one call. */
export function paramHeaders(
  params: readonly HeaderParam[],
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    const formatted = formatParamValue(valueAt(args, param.path), param.type);
    if (formatted !== undefined) headers[`Mcp-Param-${param.header}`] = formatted;
  }
  return headers;
}

function mismatch(header: string, got: string, expected: string): McpError {
  return McpError.headerMismatch(
    `Header mismatch: ${header} header value '${got}' does not match body value '${expected}'`,
  );
}

function headerText(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Checks that every annotated argument and its `Mcp-Param-*` header agree (server side). */
export function checkParamHeaders(
  params: readonly HeaderParam[],
  args: Record<string, unknown> | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): void {
  for (const param of params) {
    const name = `Mcp-Param-${param.header}`;
    const raw = headerText(headers, `${HEADER.paramPrefix}${param.header.toLowerCase()}`);
    const value = valueAt(args, param.path);
    if (value === undefined || value === null) {
      if (raw !== undefined)
        throw McpError.headerMismatch(`Header mismatch: ${name} is present but the argument is absent`);
      continue;
    }
    if (raw === undefined)
      throw McpError.headerMismatch(`Header mismatch: ${name} header is required for this tool call`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined)
      throw McpError.headerMismatch(`Header mismatch: ${name} header has invalid characters or encoding`);
    const agrees =
      param.type === "integer"
        ? integerHeaderMatches(decoded, value)
        : param.type === "boolean"
          ? typeof value === "boolean" && decoded === String(value)
          : decoded === value;
    if (!agrees) throw mismatch(name, decoded, bodyText(value));
  }
}

/**
 * The body's value as a mismatch message shows it. The body is JSON from the peer, so a value such as
 * `{"toString":{}}` must not be handed to String(), which would call the peer's "method" and throw.
 */
function bodyText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "undefined");
}

export { headerText };
