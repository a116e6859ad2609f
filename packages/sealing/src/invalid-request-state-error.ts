/** The JSON-RPC error body of an invalid requestState, as it appears on the wire. */
export interface InvalidRequestStateErrorBody {
  readonly code: -32602;
  readonly message: "Invalid or expired requestState";
  readonly data: { readonly reason: "invalid_request_state" };
}

/**
 * The single wire error for every rejected requestState. Tampered, expired, rebound and foreign
 * tokens must look identical to the client, so the real reason never leaves the server log.
 */
export const INVALID_REQUEST_STATE_ERROR: InvalidRequestStateErrorBody = Object.freeze({
  code: -32602,
  message: "Invalid or expired requestState",
  data: Object.freeze({ reason: "invalid_request_state" }),
});
