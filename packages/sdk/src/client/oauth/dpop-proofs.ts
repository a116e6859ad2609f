import * as oauth from "oauth4webapi";

/** How the client proves possession of its tokens (RFC 9449). */
export interface DpopOptions {
  /**
   * The key tokens are bound to. Default: an ES256 pair generated for the life of the provider; pass a
   * persisted pair (its public key extractable) to refresh DPoP-bound tokens kept by a persistent store.
   */
  keyPair?: oauth.CryptoKeyPair;
}

/**
 * oauth4webapi 3.8.8's DPoP handle signs resource-request proofs and keeps server nonces per origin
 * with these two methods; its typings declare only calculateThumbprint, and the version is pinned.
 */
interface ProofSigner {
  addProof(url: URL, headers: Headers, htm: string, accessToken?: string): Promise<void>;
  cacheNonce(response: { headers: Headers }, url: URL): void;
}

/**
 * The provider's DPoP key and the nonces servers handed out: one oauth4webapi handle serves the token
 * endpoint (proofs for every grant, refreshes included, so a bound token is renewed with its own key)
 * and the MCP endpoint (a fresh proof per request, with `ath` binding it to the access token).
 */
export class DpopProofs {
  /** For oauth4webapi's token requests (`options.DPoP`). */
  readonly handle: Promise<oauth.DPoPHandle>;

  constructor(options: DpopOptions) {
    const keyPair = options.keyPair ?? oauth.generateKeyPair("ES256", { extractable: false });
    // The handle reads only a clock skew setting from the client, which Roundtrip leaves unset.
    this.handle = Promise.resolve(keyPair).then((pair) => oauth.DPoP({}, pair));
  }

  /** The DPoP header value for one request to `url` presenting `accessToken`. */
  async proof(method: string, url: URL, accessToken: string): Promise<string> {
    const headers = new Headers();
    await (await this.#signer()).addProof(url, headers, method.toUpperCase(), accessToken);
    return headers.get("dpop") as string;
  }

  /** Keeps the nonce a server sent (RFC 9449 §8, §9) for the next proof to its origin. */
  async rememberNonce(url: URL, nonce: string): Promise<void> {
    (await this.#signer()).cacheNonce({ headers: new Headers({ "dpop-nonce": nonce }) }, url);
  }

  async #signer(): Promise<ProofSigner> {
    return (await this.handle) as unknown as ProofSigner;
  }
}
