import type { ClientRegistration } from "./client-registration.js";
import type { TokenResponse } from "./token-request.js";
import type { StoredTokens, TokenStore } from "./token-store.js";

/** A token is renewed this long before it expires, so it does not lapse in flight. */
const EXPIRY_MARGIN_MS = 30_000;

/** Where a token response is filed: the issuer and resource it is for, under its store key. */
export type TokenPlace = Pick<StoredTokens, "issuer" | "resource"> & { key: string };

/**
 * The provider's view of its token store: what it saves from a token response, when a token counts as
 * expired, and which keys it has touched, so a logout reaches every one of them.
 */
export class TokenKeeper {
  readonly #store: TokenStore;
  readonly #now: () => number;
  readonly #keys = new Set<string>();

  constructor(store: TokenStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  get(key: string): Promise<StoredTokens | undefined> {
    return this.#store.get(key);
  }

  track(key: string): void {
    this.#keys.add(key);
  }

  /** Every key tracked since the last `untrackAll`. */
  keys(): string[] {
    return [...this.#keys];
  }

  untrackAll(): void {
    this.#keys.clear();
  }

  /** Deletes the tokens; the key stays tracked, since the same place is signed in to again. */
  delete(key: string): Promise<void> {
    return this.#store.delete(key);
  }

  /** Deletes the tokens of a place the provider will not use again. */
  async forget(key: string): Promise<void> {
    await this.#store.delete(key);
    this.#keys.delete(key);
  }

  /**
   * Files a token response. The scope kept is the granted one, else the one asked for; a dynamic
   * client's secret is kept with its tokens, since refreshing them needs the same client.
   */
  async save(
    place: TokenPlace,
    client: ClientRegistration,
    tokens: TokenResponse,
    requestedScope: string | undefined,
  ): Promise<StoredTokens> {
    const { issuer, resource, key } = place;
    const { accessToken, tokenType, refreshToken, expiresIn } = tokens;
    const stored: StoredTokens = { issuer, resource, clientId: client.clientId, accessToken, tokenType };
    if (refreshToken !== undefined) stored.refreshToken = refreshToken;
    const scope = tokens.scope ?? requestedScope;
    if (scope !== undefined) stored.scope = scope;
    if (expiresIn !== undefined) stored.expiresAt = this.#now() + expiresIn * 1000;
    if (client.source === "dynamic" && client.clientSecret !== undefined) {
      stored.clientSecret = client.clientSecret;
    }
    await this.#store.set(key, stored);
    this.#keys.add(key);
    return stored;
  }

  expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined && this.#now() >= tokens.expiresAt - EXPIRY_MARGIN_MS;
  }
}
