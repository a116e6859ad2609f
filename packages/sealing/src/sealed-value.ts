import { sealWithCodec, unsealWithCodec } from "./codec-calls.js";
import { rejectRequestState } from "./invalid-request-state.js";
import type { RequestStateCodec } from "./request-state-codec.js";
import { typeName } from "./type-name.js";
import { encodeUtf8SurrogatePass } from "./utf8.js";

/**
 * What comes first in a sealed value's payload: a NUL (no requestState claims envelope, which is JSON,
 * starts with one), "RV" and the format version.
 */
const MAGIC = Buffer.from([0x00, 0x52, 0x56, 0x01]);
const LENGTH_BYTES = 4;
const HEADER_BYTES = MAGIC.length + LENGTH_BYTES;

/**
 * Seals a value a server keeps at rest (in a store its fleet may share) with the codec that seals its
 * requestState, bound to `context`: normally the key the value is stored under, so a value copied to
 * another key does not open there. Whoever reads the store reads ciphertext; every instance holding
 * the keys opens it, through key rotation as requestState does.
 *
 * The context is sealed with the value rather than passed as the cipher's associated data, so every
 * codec (the built-in ring, KMS, your own) authenticates it under its tag with no change to
 * `RequestStateCodec` or to the requestState byte format:
 *
 *   payload = 00 52 56 01 || uint32be(len(context)) || utf8(context) || value
 *
 * Throws a TypeError for a value that is not bytes or an empty context, and `RequestStateSealError`
 * when the codec fails.
 */
export function sealValue(codec: RequestStateCodec, value: Uint8Array, context: string): string {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`sealValue: value must be a Uint8Array, got ${typeName(value)}`);
  }
  const bound = contextBytes(context, "sealValue");
  // Laid out in one buffer: a zero-filled one for the length alone had memory of its own, outside the
  // pool, which cost more than the copy.
  const payload = Buffer.allocUnsafe(HEADER_BYTES + bound.length + value.length);
  MAGIC.copy(payload, 0);
  payload.writeUInt32BE(bound.length, MAGIC.length);
  bound.copy(payload, HEADER_BYTES);
  payload.set(value, HEADER_BYTES + bound.length);
  return sealWithCodec(codec, payload);
}

/**
 * Opens what `sealValue` sealed for `context` and returns the value. Throws `InvalidRequestState`:
 * with the codec's reason (`malformed`, `unknown key`, `seal`, or a custom codec's), `codec error`
 * when the codec broke its contract, `malformed` when the payload is not a sealed value (a requestState
 * token, say), and `seal` when it was sealed for another context, as a cipher's associated data would.
 */
export function openValue(codec: RequestStateCodec, sealed: string, context: string): Uint8Array {
  const expected = contextBytes(context, "openValue");
  if (typeof sealed !== "string") throw rejectRequestState("malformed");
  const payload = Buffer.from(unsealWithCodec(codec, sealed));
  const start = HEADER_BYTES;
  if (payload.length < start || !payload.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw rejectRequestState("malformed");
  }
  const end = start + payload.readUInt32BE(MAGIC.length);
  if (end > payload.length) throw rejectRequestState("malformed");
  if (!payload.subarray(start, end).equals(expected)) throw rejectRequestState("seal");
  return payload.subarray(end);
}

/** Lone surrogates keep their own bytes, so two different contexts never bind alike. */
function contextBytes(context: unknown, what: string): Buffer {
  if (typeof context === "string" && context !== "") return encodeUtf8SurrogatePass(context);
  const got = context === "" ? "an empty string" : typeName(context);
  throw new TypeError(`${what}: context must be a non-empty string (the value's store key), got ${got}`);
}
