import fc from "fast-check";

/**
 * Characters node:http lets a client put in a header value: tab, visible ASCII and space, and the
 * Latin-1 upper half. Anything else never reaches a server, so it is not worth generating.
 */
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((code) => String.fromCharCode(code));

const base64Of = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/** Header values a careless or hostile client might send, plain and in the base64 sentinel form. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: headerChar, maxLength: 40 }),
  fc.constantFrom("", " ", "2026-07-28", "2025-11-25", "tools/call", "tools/list", "ask", "route", "null"),
  fc.string({ maxLength: 20 }).map((text) => `=?base64?${base64Of(text)}?=`),
  fc.string({ unit: headerChar, maxLength: 20 }).map((text) => `=?base64?${text}?=`),
  fc.integer().map(String),
  fc.boolean().map(String),
);

/** Origins: loopback ones (allowed by default), foreign ones, and things that are not URLs at all. */
export const originValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "http://localhost",
    "http://127.0.0.1:3000",
    "http://[::1]:8080",
    "https://evil.example",
    "http://localhost.evil.example",
    "null",
    "file://",
  ),
  headerValue,
);

/** Content types: the right one in several spellings and wrong ones. */
export const contentTypeValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "application/json",
    "Application/JSON; charset=utf-8",
    "application/json;charset=UTF-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/jsonx",
    "",
  ),
  headerValue,
);

/** Any JSON value, as a body or as a replacement inside one. */
export const jsonValue: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });

/** A JSON-RPC id: valid ones (strings, integers) and invalid ones. */
export const idValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, 1.5, true, [], {}),
);

/** One change to a JSON document: replace or delete the value at a path. */
export type Mutation = { path: string[]; op: "delete" } | { path: string[]; op: "set"; value: unknown };

/** The paths of every member of a JSON document, objects only (arrays stay whole). */
export function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    [...prefix, key],
    ...pathsOf(child, [...prefix, key]),
  ]);
}

/** A copy of `document` with `mutation` applied; an impossible path leaves it unchanged. */
export function applyMutation(document: unknown, mutation: Mutation): unknown {
  const copy = structuredClone(document);
  let parent: unknown = copy;
  const keys = mutation.path;
  for (const key of keys.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return copy;
    parent = (parent as Record<string, unknown>)[key];
  }
  const last = keys.at(-1);
  if (last === undefined || typeof parent !== "object" || parent === null) return copy;
  const target = parent as Record<string, unknown>;
  if (mutation.op === "delete") delete target[last];
  else target[last] = mutation.value;
  return copy;
}

/** Up to `max` mutations of `document`, each at one of its own paths or a new key beside one. */
export function mutationsOf(document: unknown, max = 3): fc.Arbitrary<Mutation[]> {
  const paths = pathsOf(document);
  if (paths.length === 0) return fc.constant([]);
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), fc.string({ minLength: 1, maxLength: 8 }))
        .map(([at, key]) => [...at.slice(0, -1), key]),
    },
  );
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    path.map((p): Mutation => ({ path: p, op: "delete" })),
    fc.tuple(path, jsonValue).map(([p, value]): Mutation => ({ path: p, op: "set", value })),
  );
  return fc.array(mutation, { minLength: 1, maxLength: max });
}
