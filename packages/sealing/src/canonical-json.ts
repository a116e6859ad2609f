import { pythonFloatRepr } from "./python-float.js";

/*
 * Canonical JSON, written once: one walk over a value, following what `JSON.stringify` would put on
 * the wire (toJSON honoured, undefined object members dropped, undefined array items written as
 * null, cycles refused), plus bigint printed as an integer; and a dialect saying how to print the
 * strings and numbers it meets and how to order keys.
 */

interface Dialect {
  string(text: string): string;
  number(value: number): string;
  /** How an object's keys are ordered; undefined keeps insertion order. */
  compareKeys: ((a: string, b: string) => number) | undefined;
}

const PYTHON: Dialect = { string: pythonJsonString, number: pythonJsonNumber, compareKeys: undefined };
const PYTHON_SORTED: Dialect = { ...PYTHON, compareKeys: compareCodePoints };
const JAVASCRIPT_SORTED: Dialect = {
  string: (text) => JSON.stringify(text),
  // NaN and the infinities come out as null, as JSON.stringify writes them.
  number: (value) => JSON.stringify(value),
  compareKeys: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
};

/**
 * JSON exactly as Python's `json.dumps(value, separators=(",", ":"), ensure_ascii=True)` prints it,
 * optionally with `sort_keys=True`. Digests over this text must match the reference implementation
 * byte for byte, and `JSON.stringify` differs: it keeps insertion order (and a plain sort compares
 * UTF-16 units, not code points), leaves non-ASCII unescaped, and prints floats differently (`1e-7`).
 *
 * Integral numbers below 1e21 print as integers: after `JSON.parse`, `1.0` and `1` are the same
 * number, the one documented case where a Python peer may digest differently (as do integers beyond
 * 2^53, which `JSON.parse` rounds; pass them as bigint to keep them exact).
 */
export function pythonJsonDumps(value: unknown, options: { sortKeys: boolean }): string {
  return write(value, options.sortKeys ? PYTHON_SORTED : PYTHON, []);
}

/**
 * The text `JSON.stringify` writes, with every object's keys sorted by UTF-16 unit (as a plain
 * `sort()` orders strings): the same JSON value gives the same text whatever order its keys came in.
 * Strings and numbers print as `JSON.stringify` prints them (non-ASCII as itself, `1e-7`), so this is
 * not the Python SDK's form (`pythonJsonDumps`): it is the form a digest keeps when it was first
 * defined this way and is compared with digests stored by earlier releases.
 */
export function sortedKeysJson(value: unknown): string {
  return write(value, JAVASCRIPT_SORTED, []);
}

/** `open` holds the containers being written, to refuse cycles; JSON values are shallow, so a list will do. */
function write(value: unknown, dialect: Dialect, open: object[]): string {
  switch (typeof value) {
    case "string":
      return dialect.string(value);
    case "number":
      return dialect.number(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      return value === null ? "null" : writeContainer(value, dialect, open);
    default:
      throw new TypeError(`cannot serialize a ${typeof value} as JSON`);
  }
}

function writeContainer(value: object, dialect: Dialect, open: object[]): string {
  const json = toJson(value);
  if (json !== value) return json === undefined ? "null" : write(json, dialect, open);
  if (open.includes(value)) throw new TypeError("cannot serialize a circular structure as JSON");
  open.push(value);
  const text = Array.isArray(value) ? writeArray(value, dialect, open) : writeObject(value, dialect, open);
  open.pop();
  return text;
}

function toJson(value: object): unknown {
  const method = (value as { toJSON?: unknown }).toJSON;
  return typeof method === "function" ? method.call(value) : value;
}

function writeArray(items: readonly unknown[], dialect: Dialect, open: object[]): string {
  let text = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    text += (i === 0 ? "" : ",") + (isSkipped(item) ? "null" : write(item, dialect, open));
  }
  return `${text}]`;
}

function writeObject(object: object, dialect: Dialect, open: object[]): string {
  const record = object as Record<string, unknown>;
  const keys = Object.keys(record);
  if (dialect.compareKeys !== undefined && keys.length > 1) keys.sort(dialect.compareKeys);
  let text = "{";
  for (const key of keys) {
    const member = record[key];
    if (isSkipped(member)) continue;
    text += `${text.length === 1 ? "" : ","}${dialect.string(key)}:${write(member, dialect, open)}`;
  }
  return `${text}}`;
}

function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/**
 * A number as Python prints it after parsing the text `JSON.stringify` sends: integral values below
 * 1e21 travel as plain digits (Python reads an int), everything else travels with a fraction or an
 * exponent (Python reads a float, e.g. `1.5e+300`).
 */
export function pythonJsonNumber(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : pythonFloatRepr(value);
}

/**
 * Orders strings by Unicode code point, as Python sorts `str`. JavaScript's default compares UTF-16
 * units, which puts an astral character (a surrogate pair, 0xD800..) before U+E000..U+FFFF.
 * Lone surrogates count as their own code point, as in Python.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return x < 0xd800 && y < 0xd800 ? x - y : compareAtSurrogate(a, b, i);
  }
  return a.length - b.length;
}

/** Compares whole code points where the strings first differ, starting at a shared high surrogate. */
function compareAtSurrogate(a: string, b: string, i: number): number {
  const previous = a.charCodeAt(i - 1);
  const start = previous >= 0xd800 && previous <= 0xdbff ? i - 1 : i;
  const difference = (a.codePointAt(start) ?? 0) - (b.codePointAt(start) ?? 0);
  return difference !== 0 ? difference : (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}

/** Printable ASCII but `"` and `\`: the characters both dialects write as themselves. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const NON_ASCII = /[\x7f-\uffff]/;
const NON_ASCII_UNITS = /[\x7f-\uffff]/g;

function unicodeEscape(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A JSON string with Python's ASCII escaping: everything outside printable ASCII becomes `\uXXXX`
 * (lowercase hex), per UTF-16 unit, so astral characters become surrogate pairs and lone
 * surrogates survive as escapes. `JSON.stringify` already escapes quotes, backslashes, control
 * characters and lone surrogates exactly as Python does (short forms, lowercase hex), natively;
 * only DEL and the rest of non-ASCII are left to escape here.
 */
export function pythonJsonString(text: string): string {
  // Most strings (names, digests, base64 state) need no escape at all in either dialect.
  if (PLAIN.test(text)) return `"${text}"`;
  const json = JSON.stringify(text);
  return NON_ASCII.test(json) ? json.replace(NON_ASCII_UNITS, unicodeEscape) : json;
}
