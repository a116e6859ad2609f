const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Which browser origins may call the server. The default admits loopback pages only. */
export type OriginPolicy = readonly string[] | ((origin: string) => boolean);

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

export function isLoopbackOrigin(origin: string): boolean {
  const host = hostOf(origin);
  return host !== undefined && LOOPBACK_HOSTS.has(host);
}

/**
 * DNS rebinding defence: an Origin header, when present, must be allowed. Requests without one come
 * from non-browser clients and pass.
 */
export function originAllowed(origin: string | undefined, policy: OriginPolicy | undefined): boolean {
  if (origin === undefined) return true;
  if (policy === undefined) return isLoopbackOrigin(origin);
  if (typeof policy === "function") return policy(origin);
  return policy.includes(origin) || policy.includes("*");
}

/** Host header allow-list, for servers bound to loopback (a rebound name still sends its own Host). */
export function hostAllowed(host: string | undefined, allowedHosts: readonly string[] | undefined): boolean {
  if (allowedHosts === undefined) return true;
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? host);
  return allowedHosts.includes(name.toLowerCase());
}

export const LOOPBACK_HOST_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];
