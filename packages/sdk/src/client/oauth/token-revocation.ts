import { applyClientAuthentication, type ClientCredentials } from "./client-authentication.js";

export interface RevocationOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * Asks the authorization server to revoke a token (RFC 7009). Revocation is a courtesy at sign-out: the
 * answer is whether the server confirmed it, and a failure (unreachable, refused) is reported as false
 * rather than thrown, since the client forgets the token either way.
 */
export async function revokeToken(
  revocationEndpoint: URL,
  token: string,
  hint: "access_token" | "refresh_token",
  client: ClientCredentials,
  options: RevocationOptions = {},
): Promise<boolean> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = new Headers({ "content-type": "application/x-www-form-urlencoded" });
  try {
    applyClientAuthentication(client, headers, body);
    const response = await (options.fetch ?? globalThis.fetch)(revocationEndpoint, {
      method: "POST",
      headers,
      body,
      redirect: "error",
      signal: options.signal ?? AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
