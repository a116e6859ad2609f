import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { chooseTokenEndpointAuthMethod } from "./client-authentication.js";
import { type ClientRegistration, registerClient } from "./client-registration.js";
import { OAuthError } from "./errors.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import type { ResourceContext } from "./resource-contexts.js";
import type { StoredTokens, TokenStore } from "./token-store.js";

/** The authorization server a client identity is for, and where its tokens are stored. */
export type RegistrationTarget = Pick<ResourceContext, "issuer" | "server" | "key">;

/**
 * Which client the provider is with each authorization server, in the MCP order: pre-registered, then
 * a client metadata document where the server takes one, then dynamic registration (RFC 7591).
 * Dynamic registrations are kept per issuer, so credentials are never carried to another
 * authorization server, and are recovered from stored tokens so a restart does not register again.
 */
export class ClientRegistrar {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #dynamic = new Map<string, ClientRegistration>();

  constructor(options: OAuthClientOptions, store: TokenStore) {
    this.#options = options;
    this.#store = store;
  }

  /** The client to run a grant as, registering one if nothing else will do. */
  async clientFor(target: RegistrationTarget, signal?: AbortSignal): Promise<ClientRegistration> {
    const { clientId, clientMetadataUrl, grant } = this.#options;
    const { issuer, server } = target;
    if (clientId !== undefined) return this.#preRegistered(clientId, target);
    const takesDocuments = server.client_id_metadata_document_supported === true;
    if (clientMetadataUrl !== undefined && grant === "authorization_code" && takesDocuments) {
      return metadataDocumentClient(clientMetadataUrl);
    }
    let client = this.#dynamic.get(issuer);
    if (!client) {
      const stored = await this.#store.get(target.key);
      client =
        stored?.issuer === issuer ? this.#dynamicFrom(stored, server) : await this.#register(server, signal);
      this.#dynamic.set(issuer, client);
    }
    return client;
  }

  /** The client a stored token was issued to, for refreshing or revoking it. */
  clientOf(stored: StoredTokens, target: RegistrationTarget): ClientRegistration {
    if (stored.clientId === this.#options.clientId) return this.#preRegistered(stored.clientId, target);
    if (stored.clientId === this.#options.clientMetadataUrl) return metadataDocumentClient(stored.clientId);
    const known = this.#dynamic.get(target.issuer);
    return known?.clientId === stored.clientId ? known : this.#dynamicFrom(stored, target.server);
  }

  forget(): void {
    this.#dynamic.clear();
  }

  /**
   * Pre-registered client information is only valid at the authorization server that registered it
   * (MCP authorization): with any other, neither the secret, the key nor the id is used.
   */
  #preRegistered(clientId: string, target: RegistrationTarget): ClientRegistration {
    const { clientIssuer, clientSecret, clientPrivateKey, tokenEndpointAuthMethod } = this.#options;
    if (clientIssuer !== undefined && clientIssuer !== target.issuer) {
      throw new OAuthError(
        "client_issuer",
        `the resource names the authorization server ${target.issuer}, but client ${clientId} is registered with ${clientIssuer}; its credentials are not sent there. If the resource really moved, register the client with ${target.issuer} and configure that issuer`,
      );
    }
    const source = "pre-registered";
    if (clientPrivateKey !== undefined) {
      const method = tokenEndpointAuthMethod ?? "private_key_jwt";
      return { clientId, privateKey: clientPrivateKey, method, source };
    }
    return { clientId, clientSecret, method: this.#method(target.server, clientSecret), source };
  }

  #dynamicFrom({ clientId, clientSecret }: StoredTokens, server: AuthorizationServerMetadata) {
    return { clientId, clientSecret, method: this.#method(server, clientSecret), source: "dynamic" } as const;
  }

  #method(server: AuthorizationServerMetadata, secret: string | undefined): ClientRegistration["method"] {
    const supported = server.token_endpoint_auth_methods_supported;
    return (
      this.#options.tokenEndpointAuthMethod ?? chooseTokenEndpointAuthMethod(supported, secret !== undefined)
    );
  }

  #register(server: AuthorizationServerMetadata, signal?: AbortSignal): Promise<ClientRegistration> {
    const { grant, clientMetadata, tokenEndpointAuthMethod, fetch, allowInsecureHttp } = this.#options;
    const redirectUri = this.#options.redirect?.redirectUri;
    const options = { grant, clientMetadata, redirectUri, tokenEndpointAuthMethod, fetch, allowInsecureHttp };
    return registerClient(server, { ...options, signal });
  }
}

/** The metadata document's URL is the client_id; the client is public, since no secret can be published. */
function metadataDocumentClient(url: string): ClientRegistration {
  return { clientId: url, method: "none", source: "metadata-document" };
}
