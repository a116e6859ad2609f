/**
 * Turns the sealed claims into an opaque, URL-safe token and back.
 *
 * Both methods are synchronous on purpose: they run on every round of every multi round-trip call,
 * so key material must already be in memory (unwrap KMS keys once at startup, never per token).
 * `unseal` must throw `InvalidRequestState` for anything it did not mint unmodified, compare in
 * constant time, and bind a versioned token prefix under its authentication tag. Expiry, request,
 * audience and principal binding are checked by `RequestStateSecurity` for every codec.
 */
export interface RequestStateCodec {
  seal(payload: Uint8Array): string;
  unseal(token: string): Uint8Array;
}
