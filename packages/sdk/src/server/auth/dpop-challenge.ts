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

/** Printable ASCII without `"` and `\`, as in the Bearer challenge, so a description cannot break out of its quotes. */
function quoted(value: string): string {
  const safe = value
    .replace(/"/g, "'")
    .replace(/\\/g, "/")
    .replace(/[^\x20-\x7e]/g, "?");
  return `"${safe}"`;
}

export function dpopChallenge(challenge: DpopChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.scope && challenge.scope.length > 0)
    params.push(`scope=${quoted(challenge.scope.join(" "))}`);
  if (challenge.resourceMetadata) params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  if (challenge.algs && challenge.algs.length > 0) params.push(`algs=${quoted(challenge.algs.join(" "))}`);
  if (challenge.description) params.push(`error_description=${quoted(challenge.description)}`);
  return params.length > 0 ? `DPoP ${params.join(", ")}` : "DPoP";
}
