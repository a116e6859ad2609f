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

/**
 * A `WWW-Authenticate` challenge of `scheme` with the parameters both Bearer (RFC 6750) and DPoP
 * (RFC 9449 §7.1) share, in one order, plus any the scheme adds (DPoP's `algs`) before the description.
 */
export function authChallenge(
  scheme: string,
  challenge: Omit<BearerChallenge, "error"> & { error?: string },
  extra: readonly (readonly [name: string, value: string])[] = [],
): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.scope && challenge.scope.length > 0)
    params.push(`scope=${quoted(challenge.scope.join(" "))}`);
  if (challenge.resourceMetadata) params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  for (const [name, value] of extra) params.push(`${name}=${quoted(value)}`);
  if (challenge.description) params.push(`error_description=${quoted(challenge.description)}`);
  return params.length > 0 ? `${scheme} ${params.join(", ")}` : scheme;
}

export function bearerChallenge(challenge: BearerChallenge): string {
  return authChallenge("Bearer", challenge);
}

/** What a client reads from a `WWW-Authenticate` header: the Bearer challenge's parameters, verbatim. */
export interface ParsedBearerChallenge {
  /** The `error` code as sent (`insufficient_scope`, `invalid_token`, or anything else). */
  error?: string;
  description?: string;
  /** The space-separated scopes, split; absent when the challenge names none. */
  scope?: string[];
  resourceMetadata?: string;
  /** Every parameter, lowercased names, unquoted values. */
  params: Record<string, string>;
}

/**
 * Parses the Bearer challenge out of a `WWW-Authenticate` value (RFC 7235 §4.1, RFC 6750 §3). The header
 * may carry several challenges (`Basic realm="x", Bearer scope="a"`); only the Bearer one counts, and a
 * header without one gives undefined. Quoted strings may contain commas and backslash escapes.
 */
export function parseBearerChallenge(header: string | null | undefined): ParsedBearerChallenge | undefined {
  return parseChallenge(header, "bearer");
}

/**
 * The same for the challenge of another auth-scheme (case-insensitive), such as RFC 9449's `DPoP`,
 * whose parameters (`error`, `error_description`, `resource_metadata`) read the same way.
 */
export function parseChallenge(
  header: string | null | undefined,
  scheme: string,
): ParsedBearerChallenge | undefined {
  if (!header) return undefined;
  const wanted = scheme.toLowerCase();
  let found: Record<string, string> | undefined;
  let current: Record<string, string> | undefined;
  let i = 0;
  const n = header.length;
  const skip = (pattern: RegExp) => {
    while (i < n && pattern.test(header.charAt(i))) i++;
  };
  while (i < n) {
    skip(/[\s,]/);
    const tokenStart = i;
    while (i < n && /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(header.charAt(i))) i++;
    const token = header.slice(tokenStart, i);
    if (token === "") {
      i++; // a stray character: skip it rather than loop forever
      continue;
    }
    skip(/[ \t]/);
    if (header.charAt(i) === "=") {
      i++;
      skip(/[ \t]/);
      let value = "";
      if (header.charAt(i) === '"') {
        i++;
        while (i < n && header.charAt(i) !== '"') {
          if (header.charAt(i) === "\\" && i + 1 < n) i++;
          value += header.charAt(i);
          i++;
        }
        i++; // closing quote
      } else {
        const valueStart = i;
        while (i < n && !/[\s,]/.test(header.charAt(i))) i++;
        value = header.slice(valueStart, i);
      }
      // token68 values (`Basic abc==`) end in '=' and have no following value; they only belong to the scheme.
      if (current) current[token.toLowerCase()] = value;
      continue;
    }
    // A bare token starts a new challenge (its auth-scheme).
    current = {};
    if (token.toLowerCase() === wanted && found === undefined) found = current;
  }
  if (!found) return undefined;
  const params = found;
  const parsed: ParsedBearerChallenge = { params };
  if (params.error !== undefined) parsed.error = params.error;
  if (params.error_description !== undefined) parsed.description = params.error_description;
  if (params.scope !== undefined) {
    const scopes = params.scope.split(/\s+/).filter((scope) => scope !== "");
    if (scopes.length > 0) parsed.scope = scopes;
  }
  if (params.resource_metadata !== undefined) parsed.resourceMetadata = params.resource_metadata;
  return parsed;
}
