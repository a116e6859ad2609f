import type { JWK } from "jose";
import type { ClientMetadata } from "oidc-provider";

/** A confidential client using the client_credentials grant (a service calling the MCP server). */
export interface MachineClient {
  kind: "machine";
  id: string;
  secret: string;
  /** The most it may ask for; a token request may ask for fewer. */
  scopes: readonly string[];
  /** Its access tokens are DPoP-bound (RFC 9449): a token request without a DPoP proof is refused. */
  dpopBound?: boolean;
}

/** A confidential client using client_credentials that authenticates with a signed assertion (RFC 7523). */
export interface KeyClient {
  kind: "private-key-jwt";
  id: string;
  /** Its private ES256 key; the server registers the public half. */
  privateKey: JWK & { kid: string; alg: "ES256"; d: string };
  scopes: readonly string[];
}

/** A public client using authorization code + PKCE with a loopback redirect (a desktop MCP client). */
export interface InteractiveClient {
  kind: "interactive";
  id: string;
  /** Loopback URIs; any port matches, as RFC 8252 asks for native apps. */
  redirectUris?: readonly string[];
}

/** A resource server's own credentials, used only to call the introspection endpoint. */
export interface IntrospectorClient {
  kind: "introspector";
  id: string;
  secret: string;
}

/**
 * A client presenting a JWT with the JWT bearer grant (RFC 7523): an MCP client with an ID-JAG (with a
 * secret), or a workload with its platform's identity token (public: the token is the credential).
 */
export interface AssertionClient {
  kind: "assertion";
  id: string;
  secret?: string;
  scopes: readonly string[];
}

/** An MCP server exchanging its callers' tokens for downstream ones (RFC 8693). */
export interface ExchangeClient {
  kind: "token-exchange";
  id: string;
  secret: string;
}

export type LocalClient =
  | MachineClient
  | KeyClient
  | InteractiveClient
  | IntrospectorClient
  | AssertionClient
  | ExchangeClient;

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * The private key of `mcp-machine-key`, published here like the other development secrets: this
 * server is for development and tests only, and nothing may trust it.
 */
export const DEVELOPMENT_CLIENT_KEY: KeyClient["privateKey"] = {
  kty: "EC",
  crv: "P-256",
  x: "mEg_QQ4pCNbdZreOkHnQLsGpt_1OUYIppLEEQHbj7L8",
  y: "UPALlWACN_u2_0Z7DMtzPmQ_2QKPhPpyS1pD1UrOFLE",
  d: "VP61wmYA6dKGuQ4Lls1aon9Tg3dgX_XLyEnVlll_5NQ",
  kid: "0nEZHxiVV9KY5NZa4TPiEp-cD1sDya5WZoPmeFUG6g8",
  alg: "ES256",
};

export const DEFAULT_REDIRECT_URI = "http://127.0.0.1/callback";

export const DEFAULT_CLIENTS: readonly LocalClient[] = [
  { kind: "machine", id: "mcp-machine", secret: "mcp-machine-secret", scopes: ["mcp:tools", "mcp:deploy"] },
  {
    kind: "machine",
    id: "mcp-machine-dpop",
    secret: "mcp-machine-dpop-secret",
    scopes: ["mcp:tools", "mcp:deploy"],
    dpopBound: true,
  },
  {
    kind: "private-key-jwt",
    id: "mcp-machine-key",
    privateKey: DEVELOPMENT_CLIENT_KEY,
    scopes: ["mcp:tools"],
  },
  { kind: "interactive", id: "mcp-interactive", redirectUris: [DEFAULT_REDIRECT_URI] },
  { kind: "introspector", id: "mcp-resource-server", secret: "mcp-resource-server-secret" },
  {
    kind: "assertion",
    id: "mcp-enterprise",
    secret: "mcp-enterprise-secret",
    scopes: ["mcp:tools", "mcp:deploy"],
  },
  { kind: "assertion", id: "mcp-workload", scopes: ["mcp:tools"] },
  { kind: "token-exchange", id: "mcp-server-exchange", secret: "mcp-server-exchange-secret" },
];

/** The client at the IdP whose users' ID tokens become ID-JAGs → the MCP client those ID-JAGs name. */
export const DEFAULT_ID_JAG_CLIENTS: Readonly<Record<string, string>> = {
  "mcp-interactive": "mcp-enterprise",
};

export function clientMetadata(client: LocalClient): ClientMetadata {
  switch (client.kind) {
    case "machine":
      return {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: client.scopes.join(" "),
        ...(client.dpopBound ? { dpop_bound_access_tokens: true } : {}),
      };
    case "private-key-jwt": {
      const { d: _private, ...publicKey } = client.privateKey;
      return {
        client_id: client.id,
        token_endpoint_auth_method: "private_key_jwt",
        token_endpoint_auth_signing_alg: "ES256",
        jwks: { keys: [{ ...publicKey, use: "sig" }] },
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: client.scopes.join(" "),
      };
    }
    case "interactive":
      return {
        client_id: client.id,
        application_type: "native",
        token_endpoint_auth_method: "none",
        // Token exchange: the IdP role, trading its users' ID tokens for ID-JAGs.
        grant_types: ["authorization_code", "refresh_token", TOKEN_EXCHANGE_GRANT],
        response_types: ["code"],
        redirect_uris: [...(client.redirectUris ?? [DEFAULT_REDIRECT_URI])],
      };
    case "assertion":
      return {
        client_id: client.id,
        ...(client.secret === undefined
          ? { token_endpoint_auth_method: "none" }
          : { client_secret: client.secret }),
        grant_types: [JWT_BEARER_GRANT],
        response_types: [],
        redirect_uris: [],
        scope: client.scopes.join(" "),
      };
    case "token-exchange":
      return {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: [TOKEN_EXCHANGE_GRANT],
        response_types: [],
        redirect_uris: [],
      };
    case "introspector":
      return {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      };
  }
}
