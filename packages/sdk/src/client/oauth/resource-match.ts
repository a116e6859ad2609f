/**
 * Whether protected resource metadata naming `resource` may speak for the MCP endpoint `serverUrl`
 * (RFC 9728 §3.3, RFC 8707): same scheme, host and port, and the resource's path is the endpoint's path
 * or one of its parent paths, on a segment boundary. Metadata found at the root well-known location
 * names the origin (`https://host`), which covers `https://host/mcp`; a document naming any other
 * server is refused, since a token minted for it would be sent to this one.
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let claimed: URL;
  let actual: URL;
  try {
    claimed = new URL(resource);
    actual = new URL(serverUrl);
  } catch {
    return false;
  }
  if (claimed.hash !== "") return false;
  if (claimed.origin !== actual.origin) return false;
  const base = claimed.pathname.endsWith("/") ? claimed.pathname : `${claimed.pathname}/`;
  const path = actual.pathname.endsWith("/") ? actual.pathname : `${actual.pathname}/`;
  return path.startsWith(base);
}
