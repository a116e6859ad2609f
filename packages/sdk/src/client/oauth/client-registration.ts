import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "../../protocol/auth/authorization-server-metadata.js";
import { isLoopbackHost } from "../../protocol/loopback.js";
import {
  type ClientCredentials,
  chooseTokenEndpointAuthMethod,
  KEYLESS_METHODS,
  type TokenEndpointAuthMethod,
} from "./client-authentication.js";
import { endpointUrl } from "./endpoint-url.js";
import { OAuthError } from "./errors.js";
import { type OAuthGrant, registeredGrantTypes } from "./oauth-grants.js";
import { libraryOptions, type OAuthRequestOptions, oauthFailure, refusalSummary } from "./oauth-library.js";

/** The client identity used with one authorization server, and where it came from. */
export interface ClientRegistration extends ClientCredentials {
  source: "pre-registered" | "metadata-document" | "dynamic";
}

export interface RegistrationOptions extends OAuthRequestOptions {
  grant: OAuthGrant;
  clientMetadata?: { client_name?: string; redirect_uris?: string[]; [field: string]: unknown };
  redirectUri?: string;
  /** Overrides the method asked for; default from the server's token_endpoint_auth_methods_supported. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

const DEFAULT_CLIENT_NAME = "Roundtrip MCP client";

/**
 * A client metadata document URL must be an HTTPS URL with a path (draft-ietf-oauth-client-id-metadata-document):
 * the authorization server fetches the client's metadata from it and uses it verbatim as client_id.
 */
export function checkClientMetadataUrl(value: string): string {
  if (!URL.canParse(value)) {
    throw new OAuthError("configuration", `clientMetadataUrl "${value}" is not an absolute URL`);
  }
  const url = new URL(value);
  if (url.protocol !== "https:" || url.pathname === "/" || url.hash !== "") {
    throw new OAuthError(
      "configuration",
      `clientMetadataUrl "${value}" must be an https URL with a path and no fragment, where the client's metadata document is published`,
    );
  }
  return value;
}

/** RFC 7591 application_type (required by MCP): native for loopback or custom-scheme redirects, web otherwise. */
function applicationType(redirectUris: readonly string[]): "native" | "web" {
  const native = (uri: string) => {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    return url !== undefined && (!/^https?:$/.test(url.protocol) || isLoopbackHost(url.hostname));
  };
  return redirectUris.length > 0 && redirectUris.every(native) ? "native" : "web";
}

/**
 * Registers a client with the authorization server by RFC 7591 dynamic client registration, the
 * fallback when nothing is pre-registered and the server does not take client metadata documents.
 */
export async function registerClient(
  metadata: AuthorizationServerMetadata,
  options: RegistrationOptions,
): Promise<ClientRegistration> {
  if (metadata.registration_endpoint === undefined) {
    const documents = metadata.client_id_metadata_document_supported
      ? " (it does accept client metadata documents: set clientMetadataUrl)"
      : "";
    throw new OAuthError(
      "client_registration",
      `the authorization server ${metadata.issuer} offers no dynamic client registration${documents}; register a client with it and set clientId (and clientSecret)`,
    );
  }
  const { registration_endpoint: registration, token_endpoint_auth_methods_supported: supported } = metadata;
  const endpoint = endpointUrl(registration, "registration_endpoint", options.allowInsecureHttp);
  const redirectUris =
    options.clientMetadata?.redirect_uris ?? (options.redirectUri === undefined ? [] : [options.redirectUri]);
  const withUser = options.grant === "authorization_code";
  // A public client when the server allows it and the flow has a user; else as a client with a secret.
  const publicAllowed = withUser && (supported === undefined || supported.includes("none"));
  const method =
    options.tokenEndpointAuthMethod ||
    (publicAllowed ? "none" : chooseTokenEndpointAuthMethod(supported, true));
  const body = {
    client_name: DEFAULT_CLIENT_NAME,
    application_type: applicationType(redirectUris),
    redirect_uris: redirectUris,
    grant_types: registeredGrantTypes(options.grant),
    response_types: withUser ? ["code"] : [],
    token_endpoint_auth_method: method,
    ...options.clientMetadata,
  };
  const failed = (summary: string) =>
    `dynamic client registration at ${endpoint.href} failed (${summary}); register a client with the authorization server and set clientId instead`;
  let response: Response;
  try {
    const as = metadata as oauth.AuthorizationServer;
    response = await oauth.dynamicClientRegistrationRequest(as, body, libraryOptions(endpoint, options));
  } catch (error) {
    throw oauthFailure(error, "client_registration", failed);
  }
  // Read here rather than by processDynamicClientRegistrationResponse, which refuses a secret without
  // client_secret_expires_at: authorization servers in the field (the MCP conformance suite's among
  // them) leave it out, and such a registration works.
  const answer: unknown = await response.json().catch(() => undefined);
  const fields = (typeof answer === "object" && answer ? answer : {}) as Record<string, unknown>;
  const { client_id: clientId, client_secret: secret, error } = fields;
  if (!response.ok || typeof clientId !== "string" || clientId === "") {
    const oauthError = typeof error === "string" ? error : undefined;
    const summary = refusalSummary(response.status, oauthError, fields.error_description);
    throw new OAuthError("client_registration", failed(summary), { oauthError });
  }
  if (typeof secret !== "string" || secret === "") return { clientId, method: "none", source: "dynamic" };
  // The method the server granted, where a client with only a secret can use it (no private_key_jwt).
  const granted = fields.token_endpoint_auth_method as TokenEndpointAuthMethod;
  const usable = (KEYLESS_METHODS as readonly string[]).includes(granted);
  return {
    clientId,
    clientSecret: secret,
    method: usable ? granted : method === "none" ? chooseTokenEndpointAuthMethod(supported, true) : method,
    source: "dynamic",
  };
}
