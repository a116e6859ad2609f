/**
 * Who an access token says it acts for (its `sub`), when it is a JWT, to tell the person who signed
 * in. Read only for that message, never trusted: the server verifies the token, and an opaque token
 * simply gives no name.
 */
export function tokenSubject(accessToken: string): string | undefined {
  const parts = accessToken.split(".");
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    const sub = (claims as { sub?: unknown } | null)?.sub;
    return typeof sub === "string" && sub !== "" ? sub : undefined;
  } catch {
    return undefined;
  }
}
