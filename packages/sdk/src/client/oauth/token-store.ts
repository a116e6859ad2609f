import type { ClientRegistration } from "./client-registration.js";
import type { TokenResponse } from "./token-request.js";

/** A token is renewed this long before it expires, so it does not lapse in flight. */
const EXPIRY_MARGIN_MS = 30_000;

/** What the client keeps of a token response, with enough context to use and refresh it later. */
export interface StoredTokens {
  /** The authorization server that issued the tokens. */
  issuer: string;
  /** The RFC 8707 resource the tokens are for, exactly as the protected resource metadata names it. */
  resource: string;
  clientId: string;
  accessToken: string;
  /** `bearer`, or `dpop` for a DPoP-bound token. */
  tokenType: string;
  refreshToken?: string;
  /** The scopes granted (or requested, when the server did not say). */
  scope?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
  /** The secret a dynamic registration returned, needed to refresh with the same client. */
  clientSecret?: string;
}

/**
 * Where tokens live between requests (and, for a persistent implementation, between runs). Keys come
 * from `tokenStoreKey`; values hold refresh tokens and client secrets, so a persistent store must be
 * private to the user (file mode 0600, an OS keychain).
 */
export interface TokenStore {
  get(key: string): Promise<StoredTokens | undefined>;
  set(key: string, tokens: StoredTokens): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Tokens for the life of the process. */
export function memoryTokenStore(): TokenStore {
  const entries = new Map<string, StoredTokens>();
  return {
    get: async (key) => (entries.has(key) ? { ...entries.get(key)! } : undefined),
    set: async (key, tokens) => void entries.set(key, { ...tokens }),
    delete: async (key) => void entries.delete(key),
  };
}

/**
 * The key tokens are stored under. The issuer is part of it, so tokens from one authorization server are
 * never sent after the resource moves to another; the client identity too (a pre-registered id or a
 * client metadata URL), so two configurations never share tokens. Dynamically registered clients have no
 * identity before registering, and share the key of "no configured client".
 */
export function tokenStoreKey(issuer: string, resource: string, clientIdentity?: string): string {
  return JSON.stringify(["mcp-oauth", issuer, resource, clientIdentity ?? null]);
}

/**
 * What is kept of a token response for `place` (its issuer and resource). The scope kept is the granted
 * one, else the one asked for; a dynamic client's secret is kept with its tokens, since refreshing them
 * needs the same client.
 */
export function tokensToStore(
  place: Pick<StoredTokens, "issuer" | "resource">,
  client: ClientRegistration,
  tokens: TokenResponse,
  requestedScope: string | undefined,
  now: number,
): StoredTokens {
  const { issuer, resource } = place;
  const { accessToken, tokenType, refreshToken, expiresIn } = tokens;
  const stored: StoredTokens = { issuer, resource, clientId: client.clientId, accessToken, tokenType };
  if (refreshToken !== undefined) stored.refreshToken = refreshToken;
  const scope = tokens.scope ?? requestedScope;
  if (scope !== undefined) stored.scope = scope;
  if (expiresIn !== undefined) stored.expiresAt = now + expiresIn * 1000;
  if (client.source === "dynamic" && client.clientSecret !== undefined)
    stored.clientSecret = client.clientSecret;
  return stored;
}

export function tokensExpired(tokens: StoredTokens, now: number): boolean {
  return tokens.expiresAt !== undefined && now >= tokens.expiresAt - EXPIRY_MARGIN_MS;
}
