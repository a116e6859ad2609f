/**
 * Whether protected resource metadata naming `resource` may speak for the MCP endpoint `serverUrl`
 * (RFC 9728 §3.3, RFC 8707): same scheme, host and port, and the resource's path is the endpoint's path
 * or one of its parent paths, on a segment boundary. Metadata found at the root well-known location
 * names the origin (`https://host`), which covers `https://host/mcp`; a document naming any other
 * server is refused, since a token minted for it would be sent to this one.
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  if (!URL.canParse(resource) || !URL.canParse(String(serverUrl))) return false;
  const claimed = new URL(resource);
  const actual = new URL(serverUrl);
  if (claimed.hash !== "" || claimed.origin !== actual.origin) return false;
  const directory = (path: string) => (path.endsWith("/") ? path : `${path}/`);
  return directory(actual.pathname).startsWith(directory(claimed.pathname));
}
