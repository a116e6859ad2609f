import { InvalidRequestState, rejectRequestState } from "./invalid-request-state.js";
import type { RequestStateCodec } from "./request-state-codec.js";
import { RequestStateSealError } from "./request-state-seal-error.js";
import { typeName } from "./type-name.js";

/**
 * A codec's `seal`, held to its contract: anything it throws, or a result that is not a string, is a
 * RequestStateSealError. Codecs may be anyone's, so nothing they do is trusted.
 */
export function sealWithCodec(codec: RequestStateCodec, payload: Uint8Array): string {
  let token: unknown;
  try {
    token = codec.seal(payload);
  } catch (error) {
    throw new RequestStateSealError("codec seal failed", { cause: error });
  }
  if (typeof token === "string") return token;
  throw new RequestStateSealError(`codec seal returned ${typeName(token)}, expected string`);
}

/** A codec's `unseal`: its own refusals keep their reason; anything else fails closed as `codec error`. */
export function unsealWithCodec(codec: RequestStateCodec, token: string): Uint8Array {
  let payload: unknown;
  try {
    payload = codec.unseal(token);
  } catch (error) {
    if (error instanceof InvalidRequestState) throw error;
    throw rejectRequestState("codec error", { cause: error });
  }
  if (payload instanceof Uint8Array) return payload;
  throw rejectRequestState("codec error");
}
