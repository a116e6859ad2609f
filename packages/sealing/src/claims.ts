import { pythonJsonString } from "./canonical-json.js";
import { rejectRequestState } from "./invalid-request-state.js";
import { pythonFloatRepr } from "./python-float.js";

/**
 * The sealed envelope around a handler's plaintext state. Key order and number formatting are part
 * of the format: a Python server sharing the keys reads and writes the same bytes.
 */
export interface RequestStateClaims {
  /** Envelope version, always 1. */
  readonly v: 1;
  /** Minted at, unix seconds (fractional). */
  readonly iat: number;
  /** Expires at: iat + ttl. Accepted while now < exp. */
  readonly exp: number;
  /** JSON-RPC method of the minting request. */
  readonly m: string;
  /** Target: the tool or prompt name, or the exact resource URI. */
  readonly t: string;
  /** Arguments digest (see argumentsDigest). */
  readonly a: string;
  /** The handler's plaintext state. */
  readonly s: string;
  /** Audience, present only when one is in effect (normally the server name). */
  readonly aud?: string;
  /** Salted principal hash, present only when a principal was bound. */
  readonly p?: string;
  /**
   * The minting server's trail for its next round (Roundtrip puts the flow, round and span there),
   * present only when one was given. Sealed with the rest, so the next round can trust it.
   */
  readonly o?: string;
}

/** Compact, ASCII-escaped JSON in the fixed key order, with iat/exp as Python floats (`1782345600.0`). */
export function serializeClaims(claims: RequestStateClaims): string {
  let json =
    `{"v":1,"iat":${pythonFloatRepr(claims.iat)},"exp":${pythonFloatRepr(claims.exp)}` +
    `,"m":${pythonJsonString(claims.m)},"t":${pythonJsonString(claims.t)}` +
    `,"a":${pythonJsonString(claims.a)},"s":${pythonJsonString(claims.s)}`;
  if (claims.aud !== undefined) json += `,"aud":${pythonJsonString(claims.aud)}`;
  if (claims.p !== undefined) json += `,"p":${pythonJsonString(claims.p)}`;
  if (claims.o !== undefined) json += `,"o":${pythonJsonString(claims.o)}`;
  return `${json}}`;
}

/** Claims as read back: only `v` and `s` are known to be well-typed; the policy checks the rest. */
export type OpenedClaims = { readonly v: 1; readonly s: string } & Readonly<Record<string, unknown>>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses an unsealed payload. Anything that is not a JSON object with `v: 1`, a string `s`, and
 * `iat`/`exp` present is `malformed`; the types of the other claims are checked by the caller in
 * the reference order. Extra claims are ignored, so newer minters can add some.
 */
export function parseClaims(payload: Uint8Array): OpenedClaims {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(payload));
  } catch {
    throw rejectRequestState("malformed");
  }
  if (!isEnvelope(parsed)) throw rejectRequestState("malformed");
  return parsed;
}

function isEnvelope(value: unknown): value is OpenedClaims {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const claims = value as Record<string, unknown>;
  return (
    claims.v === 1 &&
    typeof claims.s === "string" &&
    Object.hasOwn(claims, "iat") &&
    Object.hasOwn(claims, "exp")
  );
}
