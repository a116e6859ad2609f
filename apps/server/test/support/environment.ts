import {
  DEFAULT_CLIENTS,
  DEFAULT_REDIRECT_URI,
  type LocalAuthServer,
  type SigningKey,
  startLocalAuthServer,
} from "@roundtrip/local-auth";

/**
 * The canonical URI every test server answers for, as if behind a TLS-terminating load balancer: all
 * instances of a fleet share it, whatever address each one listens on. Tokens are minted for it.
 */
export const PUBLIC_URL = "https://mcp.roundtrip.test/mcp";
/** Another MCP server the same authorization server issues tokens for. */
export const OTHER_RESOURCE = "https://other.roundtrip.test/mcp";

/** The approval page's redirect URI: PUBLIC_URL's origin, as the page derives it. */
export const PUBLIC_CALLBACK = new URL("/callback", PUBLIC_URL).href;

/**
 * What a browser in these tests does for the public name: the load balancer in front of the instances
 * is the test itself, so a redirect to PUBLIC_URL's origin is followed to `origin` (one instance).
 */
export function viaInstance(origin: string): (url: URL) => URL {
  const publicOrigin = new URL(PUBLIC_URL).origin;
  return (url) => (url.origin === publicOrigin ? new URL(`${url.pathname}${url.search}`, origin) : url);
}

export function startAuthorizationServer(signingKeys?: readonly SigningKey[]): Promise<LocalAuthServer> {
  return startLocalAuthServer({
    resource: [PUBLIC_URL, OTHER_RESOURCE],
    // The approval page signs people in with the interactive client, at PUBLIC_URL's /callback.
    clients: DEFAULT_CLIENTS.map((client) =>
      client.kind === "interactive"
        ? { ...client, redirectUris: [DEFAULT_REDIRECT_URI, PUBLIC_CALLBACK] }
        : client,
    ),
    ...(signingKeys ? { signingKeys } : {}),
  });
}

/** The environment of a server trusting `as`, listening on a free loopback port. */
export function serverEnvironment(
  as: LocalAuthServer,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    HOST: "127.0.0.1",
    PORT: "0",
    PUBLIC_URL,
    OAUTH_ISSUER: as.issuer,
    LOG_LEVEL: "info",
    ...overrides,
  };
}
