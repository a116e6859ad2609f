/**
 * Why the policy or a built-in codec refused a requestState: `InvalidRequestState.reason`, for the
 * server log only. The strings are the reference Python SDK's, so the logs of a mixed fleet read alike.
 */
export type RequestStateRejection =
  /** The echoed value is not a string. */
  | "non-string requestState"
  /** Not a token of this codec (prefix, canonical base64url, length), or not a v1 claims envelope. */
  | "malformed"
  /** Minted under a key this ring does not hold. */
  | "unknown key"
  /** Authentication failed: tampered, truncated, or the key id was swapped. */
  | "seal"
  /** A custom codec threw something other than InvalidRequestState, or returned no bytes. */
  | "codec error"
  /** `iat` more than CLOCK_SKEW_SECONDS ahead of this clock. */
  | "minted in the future"
  /** At or past `exp`. */
  | "expired"
  /** Echoed on another method, tool, prompt, URI or arguments. */
  | "request binding"
  /** Minted for another audience, or with or without one. */
  | "audience"
  /** `bindPrincipal` threw. */
  | "principal binding error"
  /** `bindPrincipal` returned something other than a string or null (`<type>` names what). */
  | `bindPrincipal returned ${string}, expected string or null`
  /** Minted with a principal and echoed without one, or the reverse. */
  | "principal drift"
  /** Minted for another principal. */
  | "principal";

/** Every fixed RequestStateRejection; the `bindPrincipal returned ...` one is a pattern, not a string. */
export const REQUEST_STATE_REJECTIONS = Object.freeze([
  "non-string requestState",
  "malformed",
  "unknown key",
  "seal",
  "codec error",
  "minted in the future",
  "expired",
  "request binding",
  "audience",
  "principal binding error",
  "principal drift",
  "principal",
] as const satisfies readonly RequestStateRejection[]);

const BIND_PRINCIPAL_RETURNED = /^bindPrincipal returned .*, expected string or null$/s;

/** Whether `reason` is one of the policy's and built-in codecs' own, rather than a custom codec's. */
export function isRequestStateRejection(reason: string): reason is RequestStateRejection {
  return (
    (REQUEST_STATE_REJECTIONS as readonly string[]).includes(reason) || BIND_PRINCIPAL_RETURNED.test(reason)
  );
}
