import { type LocalAuthServer, type SigningKey, startLocalAuthServer } from "@roundtrip/local-auth";

/**
 * The canonical URI every test server answers for, as if behind a TLS-terminating load balancer: all
 * instances of a fleet share it, whatever address each one listens on. Tokens are minted for it.
 */
export const PUBLIC_URL = "https://mcp.roundtrip.test/mcp";
/** Another MCP server the same authorization server issues tokens for. */
export const OTHER_RESOURCE = "https://other.roundtrip.test/mcp";

export function startAuthorizationServer(signingKeys?: readonly SigningKey[]): Promise<LocalAuthServer> {
  return startLocalAuthServer({
    resource: [PUBLIC_URL, OTHER_RESOURCE],
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
