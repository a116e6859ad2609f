/** The parameters of an RFC 6750 `WWW-Authenticate: Bearer` challenge, plus RFC 9728 `resource_metadata`. */
export interface BearerChallenge {
  error?: "invalid_request" | "invalid_token" | "insufficient_scope";
  description?: string;
  /** Every scope the operation needs, not only the missing ones, so one new token covers it. */
  scope?: readonly string[];
  resourceMetadata?: string;
}

/**
 * RFC 6750 limits these values to printable ASCII without `"` and `\`; anything else is replaced, so a
 * description can never break out of its quoted string.
 */
function quoted(value: string): string {
  const safe = value
    .replace(/"/g, "'")
    .replace(/\\/g, "/")
    .replace(/[^\x20-\x7e]/g, "?");
  return `"${safe}"`;
}

export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.scope && challenge.scope.length > 0)
    params.push(`scope=${quoted(challenge.scope.join(" "))}`);
  if (challenge.resourceMetadata) params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  if (challenge.description) params.push(`error_description=${quoted(challenge.description)}`);
  return params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer";
}
