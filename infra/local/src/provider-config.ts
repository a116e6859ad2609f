import type { Configuration, interactionPolicy, KoaContextWithOIDC, ResourceServer } from "oidc-provider";
import { findAccountIn, type LocalUser } from "./accounts.js";
import { clientMetadata, type LocalClient } from "./clients.js";
import type { SigningKey } from "./keys.js";

/** A protected resource (an MCP server) this authorization server issues access tokens for. */
export interface LocalResource {
  /** The RFC 8707 resource indicator: the MCP server's canonical URI. */
  uri: string;
  /** `jwt`: RFC 9068 at+jwt tokens verified offline; `opaque`: reference tokens checked by introspection. */
  format: "jwt" | "opaque";
}

export interface ProviderSettings {
  resources: readonly LocalResource[];
  scopes: readonly string[];
  clients: readonly LocalClient[];
  users: readonly LocalUser[];
  signingKeys: readonly SigningKey[];
  cookieKeys: readonly string[];
  accessTokenTtlSec: number;
}

/** The parts of oidc-provider's runtime exports the configuration needs (loaded lazily, see load-provider). */
export interface ProviderRuntime {
  InvalidTarget: new (description?: string) => Error;
  policy: typeof interactionPolicy;
}

/**
 * The oidc-provider configuration, following the toolchain notes: an ES256-only key set (so the id token
 * algorithm has to be named), resource indicators that mint at+jwt or opaque tokens per resource, the
 * client_credentials grant, development login pages, and PKCE on every authorization request.
 */
export function providerConfiguration(settings: ProviderSettings, runtime: ProviderRuntime): Configuration {
  const resources = new Map(settings.resources.map((resource) => [resource.uri, resource]));
  const introspectors = new Set(settings.clients.filter((c) => c.kind === "introspector").map((c) => c.id));
  const scope = settings.scopes.join(" ");
  return {
    jwks: { keys: settings.signingKeys.map((key) => ({ ...key })) },
    clientDefaults: { id_token_signed_response_alg: "ES256" },
    responseTypes: ["code"],
    clients: settings.clients.map(clientMetadata),
    scopes: ["openid", "offline_access", ...settings.scopes],
    claims: { openid: ["sub"], profile: ["name"], email: ["email"] },
    findAccount: findAccountIn(settings.users),
    interactions: { policy: loginOnlyKnownUsers(settings.users, runtime.policy) },
    pkce: { required: () => true },
    cookies: { keys: [...settings.cookieKeys] },
    // Fixed lifetimes: a development server needs no policy here, and leaving them unset prints a notice per kind.
    ttl: {
      AccessToken: settings.accessTokenTtlSec,
      ClientCredentials: settings.accessTokenTtlSec,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 86_400,
      Grant: 86_400,
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      // Proofs at the token endpoint bind tokens to the client's key (cnf.jkt); clients registered with
      // dpop_bound_access_tokens must send one. No nonces: tests send proofs from a fresh key each run.
      dPoP: { enabled: true },
      revocation: {
        enabled: true,
        // A client revokes its own tokens only.
        allowedPolicy: (_ctx: KoaContextWithOIDC, client, token) => token.clientId === client.clientId,
      },
      introspection: {
        enabled: true,
        // Only a resource server's own credentials may ask, and only about tokens meant for a resource.
        allowedPolicy: (_ctx: KoaContextWithOIDC, client, token) =>
          introspectors.has(client.clientId) && audiencesOf(token).some((aud) => resources.has(aud)),
      },
      resourceIndicators: {
        enabled: true,
        // No default resource: an MCP client MUST send `resource`, and a silent default would hide one that does not.
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator): ResourceServer => {
          const resource = resources.get(indicator);
          if (!resource) throw new runtime.InvalidTarget(`unknown resource ${indicator}`);
          if (resource.format === "opaque") {
            return {
              scope,
              audience: resource.uri,
              accessTokenTTL: settings.accessTokenTtlSec,
              accessTokenFormat: "opaque",
            };
          }
          return {
            scope,
            audience: resource.uri,
            accessTokenTTL: settings.accessTokenTtlSec,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
  };
}

/**
 * The development login page takes any login. Without this check an unknown one would reach the consent
 * step with no account behind it (oidc-provider then fails with a 500); with it, the login page is simply
 * shown again.
 */
function loginOnlyKnownUsers(users: readonly LocalUser[], policy: typeof interactionPolicy) {
  const known = new Set(users.map((user) => user.id));
  const prompts = policy.base();
  prompts.get("login")?.checks.push(
    new policy.Check("unknown_account", "The signed-in login is not a configured user", (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      return accountId !== undefined && !known.has(accountId);
    }),
  );
  return prompts;
}

function audiencesOf(token: object): string[] {
  const aud: unknown = "aud" in token ? token.aud : undefined;
  if (typeof aud === "string") return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : [];
}
