import fc from "fast-check";

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** One edit of a string: a character changed, removed or added, or the string cut short. */
const editOf = (text: string) =>
  fc.oneof(
    fc
      .tuple(fc.nat({ max: text.length - 1 }), fc.constantFrom(...BASE64URL))
      .map(([at, c]) => `${text.slice(0, at)}${c}${text.slice(at + 1)}`),
    fc.nat({ max: text.length - 1 }).map((at) => `${text.slice(0, at)}${text.slice(at + 1)}`),
    fc
      .tuple(fc.nat({ max: text.length }), fc.constantFrom(...BASE64URL, ".", "="))
      .map(([at, c]) => `${text.slice(0, at)}${c}${text.slice(at)}`),
    fc.nat({ max: text.length - 1 }).map((at) => text.slice(0, at)),
  );

/**
 * What a dot-separated base64url text (a JWS, a sealed state) carries: each part's bytes. The last
 * character of a part can have bits no byte uses, so two texts can spell the same bytes; an edit
 * of only those bits changes nothing a signature or a tag covers, and is no forgery.
 */
function carried(text: string): string {
  return text
    .split(".")
    .map((part) => Buffer.from(part, "base64url").toString("hex"))
    .join(".");
}

/**
 * `count` distinct edits of `text`, each carrying other bytes than it, from a fixed seed so a failure
 * is reproducible. A token or a sealed state that accepts any of them is forgeable.
 */
export function editsOf(text: string, count: number, seed: number): string[] {
  const edits = new Set<string>();
  const original = carried(text);
  let round = 0;
  while (edits.size < count) {
    for (const edit of fc.sample(editOf(text), { numRuns: count, seed: seed + round })) {
      if (carried(edit) !== original && edits.size < count) edits.add(edit);
    }
    round += 1;
  }
  return [...edits];
}

/** The JWS `a.b.c` with the middle part taken from `other`: a signature over someone else's claims. */
export function spliced(token: string, other: string): string {
  const [header, , signature] = token.split(".");
  const [, payload] = other.split(".");
  return `${header}.${payload}.${signature}`;
}
