import type { ClientMetadata } from "oidc-provider";

/** A confidential client using the client_credentials grant (a service calling the MCP server). */
export interface MachineClient {
  kind: "machine";
  id: string;
  secret: string;
  /** The most it may ask for; a token request may ask for fewer. */
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

export type LocalClient = MachineClient | InteractiveClient | IntrospectorClient;

export const DEFAULT_REDIRECT_URI = "http://127.0.0.1/callback";

export const DEFAULT_CLIENTS: readonly LocalClient[] = [
  { kind: "machine", id: "mcp-machine", secret: "mcp-machine-secret", scopes: ["mcp:tools", "mcp:deploy"] },
  { kind: "interactive", id: "mcp-interactive", redirectUris: [DEFAULT_REDIRECT_URI] },
  { kind: "introspector", id: "mcp-resource-server", secret: "mcp-resource-server-secret" },
];

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
      };
    case "interactive":
      return {
        client_id: client.id,
        application_type: "native",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: [...(client.redirectUris ?? [DEFAULT_REDIRECT_URI])],
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
