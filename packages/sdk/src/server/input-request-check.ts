import { type InputRequest, InputRequestSchema } from "../protocol/schemas/input-required.js";

/** Entries kept; a handler asks a handful of distinct questions, so this is plenty. */
const MAX_ENTRIES = 256;
/** Larger requests (long sampling transcripts) are rare and seldom repeat: not worth keeping. */
const MAX_CACHED_CHARS = 4096;

const checked = new Map<string, InputRequest | null>();

/**
 * The embedded request a handler returned, if it is a valid elicitation, sampling or roots request.
 * Handlers ask the same few questions over and over and a schema check of an elicitation form costs
 * more than the rest of the round, so verdicts are kept per JSON text: validity depends only on what
 * goes on the wire, which is that text, so a kept verdict is exactly the one a fresh check would give.
 */
export function checkInputRequest(value: unknown): InputRequest | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined || text.length > MAX_CACHED_CHARS) return parse(value);
  const known = checked.get(text);
  if (known !== undefined) return known ?? undefined;
  const verdict = parse(JSON.parse(text));
  if (checked.size >= MAX_ENTRIES) checked.clear();
  checked.set(text, verdict ?? null);
  return verdict;
}

function parse(value: unknown): InputRequest | undefined {
  const parsed = InputRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
