import type { StoredTokens, TokenStore } from "@roundtrip/sdk/oauth-client";

/**
 * Where a `roundtrip login` keeps the tokens it obtains until the sign-in has succeeded: in memory,
 * so an interrupted or failed login leaves the tokens on disk (and the login they belong to) as they were.
 */
export class StagedTokenStore implements TokenStore {
  readonly #entries = new Map<string, StoredTokens>();

  async get(key: string): Promise<StoredTokens | undefined> {
    const tokens = this.#entries.get(key);
    return tokens === undefined ? undefined : { ...tokens };
  }

  async set(key: string, tokens: StoredTokens): Promise<void> {
    this.#entries.set(key, { ...tokens });
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  entries(): { key: string; tokens: StoredTokens }[] {
    return [...this.#entries].map(([key, tokens]) => ({ key, tokens: { ...tokens } }));
  }
}
