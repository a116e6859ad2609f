import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { chooseTokenEndpointAuthMethod } from "./client-authentication.js";
import { type ClientRegistration, registerClient } from "./client-registration.js";
import { OAuthError } from "./errors.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import type { StoredTokens, TokenStore } from "./token-store.js";

/** The authorization server a client identity is for, and where its tokens are stored. */
export interface RegistrationTarget {
  issuer: string;
  server: AuthorizationServerMetadata;
  key: string;
}

type RegistrarOptions = Pick<
  OAuthClientOptions,
  | "grant"
  | "clientId"
  | "clientSecret"
  | "clientPrivateKey"
  | "clientIssuer"
  | "clientMetadataUrl"
  | "clientMetadata"
  | "tokenEndpointAuthMethod"
  | "redirect"
  | "allowInsecureHttp"
>;

/**
 * Which client the provider is with each authorization server, in the MCP order: pre-registered, then
 * a client metadata document where the server takes one, then dynamic registration (RFC 7591).
 * Dynamic registrations are kept per issuer, so credentials are never carried to another
 * authorization server, and are recovered from stored tokens so a restart does not register again.
 */
export class ClientRegistrar {
  readonly #options: RegistrarOptions;
  readonly #store: TokenStore;
  readonly #fetch: typeof fetch;
  readonly #dynamic = new Map<string, ClientRegistration>();

  constructor(options: RegistrarOptions, store: TokenStore, fetchImpl: typeof fetch) {
    this.#options = options;
    this.#store = store;
    this.#fetch = fetchImpl;
  }

  /** The client to run a grant as, registering one if nothing else will do. */
  async clientFor(target: RegistrationTarget, signal?: AbortSignal): Promise<ClientRegistration> {
    const options = this.#options;
    const { server } = target;
    if (options.clientId !== undefined) return this.#preRegistered(options.clientId, target);
    if (
      options.clientMetadataUrl !== undefined &&
      options.grant === "authorization_code" &&
      server.client_id_metadata_document_supported === true
    ) {
      return metadataDocumentClient(options.clientMetadataUrl);
    }
    const known = this.#dynamic.get(target.issuer);
    if (known) return known;
    const stored = await this.#store.get(target.key);
    if (stored && stored.issuer === target.issuer) {
      const reused = this.#dynamicFrom(stored, server);
      this.#dynamic.set(target.issuer, reused);
      return reused;
    }
    const registration = await registerClient(server, {
      grant: options.grant,
      ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
      ...(options.redirect ? { redirectUri: options.redirect.redirectUri } : {}),
      ...(options.tokenEndpointAuthMethod
        ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod }
        : {}),
      fetch: this.#fetch,
      ...(signal ? { signal } : {}),
      allowInsecureHttp: options.allowInsecureHttp ?? false,
    });
    this.#dynamic.set(target.issuer, registration);
    return registration;
  }

  /** The client a stored token was issued to, for refreshing or revoking it. */
  clientOf(stored: StoredTokens, target: RegistrationTarget): ClientRegistration {
    if (stored.clientId === this.#options.clientId) return this.#preRegistered(stored.clientId, target);
    if (stored.clientId === this.#options.clientMetadataUrl) return metadataDocumentClient(stored.clientId);
    const known = this.#dynamic.get(target.issuer);
    if (known?.clientId === stored.clientId) return known;
    return this.#dynamicFrom(stored, target.server);
  }

  forget(): void {
    this.#dynamic.clear();
  }

  /**
   * Pre-registered client information is only valid at the authorization server that registered it
   * (MCP authorization): with any other, neither the secret, the key nor the id is used.
   */
  #preRegistered(clientId: string, target: RegistrationTarget): ClientRegistration {
    const { clientIssuer, clientSecret: secret, clientPrivateKey: privateKey } = this.#options;
    if (clientIssuer !== undefined && clientIssuer !== target.issuer) {
      throw new OAuthError(
        "client_issuer",
        `the resource names the authorization server ${target.issuer}, but client ${clientId} is registered with ${clientIssuer}; its credentials are not sent there. If the resource really moved, register the client with ${target.issuer} and configure that issuer`,
      );
    }
    if (privateKey !== undefined) {
      return {
        clientId,
        privateKey,
        method: this.#options.tokenEndpointAuthMethod ?? "private_key_jwt",
        source: "pre-registered",
      };
    }
    return {
      clientId,
      ...(secret === undefined ? {} : { clientSecret: secret }),
      method: this.#method(target.server, secret !== undefined),
      source: "pre-registered",
    };
  }

  #dynamicFrom(stored: StoredTokens, server: AuthorizationServerMetadata): ClientRegistration {
    return {
      clientId: stored.clientId,
      ...(stored.clientSecret === undefined ? {} : { clientSecret: stored.clientSecret }),
      method: this.#method(server, stored.clientSecret !== undefined),
      source: "dynamic",
    };
  }

  #method(server: AuthorizationServerMetadata, hasSecret: boolean): ClientRegistration["method"] {
    return (
      this.#options.tokenEndpointAuthMethod ??
      chooseTokenEndpointAuthMethod(server.token_endpoint_auth_methods_supported, hasSecret)
    );
  }
}

/** The metadata document's URL is the client_id; the client is public, since no secret can be published. */
function metadataDocumentClient(url: string): ClientRegistration {
  return { clientId: url, method: "none", source: "metadata-document" };
}
