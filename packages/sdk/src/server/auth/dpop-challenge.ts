import { authChallenge } from "../../protocol/auth/challenge.js";

/** The parameters of an RFC 9449 §7.1 `WWW-Authenticate: DPoP` challenge, plus RFC 9728 `resource_metadata`. */
export interface DpopChallenge {
  error?:
    | "invalid_request"
    | "invalid_token"
    | "insufficient_scope"
    | "invalid_dpop_proof"
    | "use_dpop_nonce";
  description?: string;
  scope?: readonly string[];
  resourceMetadata?: string;
  /** The proof algorithms this server accepts. */
  algs?: readonly string[];
}

export function dpopChallenge(challenge: DpopChallenge): string {
  const { algs, ...shared } = challenge;
  return authChallenge("DPoP", shared, algs && algs.length > 0 ? [["algs", algs.join(" ")]] : []);
}
