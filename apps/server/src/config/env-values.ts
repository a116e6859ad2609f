import { isIP } from "node:net";
import { isLoopbackHost } from "@roundtrip/sdk/protocol";
/**
 * Parsers for single environment values. Each throws InvalidValue with a message that completes the
 * sentence "<VARIABLE> ...": the loader prefixes the variable's name, so a user sees which one to fix.
 */
export class InvalidValue extends Error {
  override readonly name = "InvalidValue";
}

/** A whole number within bounds; `unit` ("seconds", "bytes") completes the message. */
export function integer(value: string, min: number, max: number, unit: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new InvalidValue(`must be a whole number from ${min} to ${max} (${unit}), got "${value}"`);
  }
  return parsed;
}

export function boolean(value: string): boolean {
  const normalized = value.toLowerCase();
  if (["true", "1", "yes", "on"].includes(normalized)) return true;
  if (["false", "0", "no", "off"].includes(normalized)) return false;
  throw new InvalidValue(`must be true or false, got "${value}"`);
}

export function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** OAuth scopes, separated by spaces (as in a token) or commas (as in most configuration). */
export function scopes(value: string): string[] {
  const parsed = [...new Set(value.split(/[\s,]+/).filter((scope) => scope !== ""))];
  for (const scope of parsed) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
      throw new InvalidValue(`has "${scope}", which is not a valid OAuth scope (RFC 6749 §3.3)`);
    }
  }
  return parsed;
}

/** `deploy=mcp:deploy; admin_tool=mcp:admin mcp:deploy`: tools and the extra scopes each needs. */
export function toolScopes(value: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const entry of value
    .split(";")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf("=");
    const tool = entry.slice(0, separator).trim();
    const needed = separator > 0 ? scopes(entry.slice(separator + 1)) : [];
    if (separator <= 0 || tool === "" || needed.length === 0) {
      throw new InvalidValue(
        `has "${entry}"; write each tool as <tool>=<scope> [<scope>...], separated by ";" (e.g. deploy=mcp:deploy)`,
      );
    }
    result[tool] = needed;
  }
  return result;
}

export interface UrlRules {
  /** Allows http:// on non-loopback hosts. */
  allowInsecureHttp: boolean;
  example: string;
}

export function httpUrl(value: string, rules: UrlRules): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidValue(`must be an absolute URL such as ${rules.example}, got "${value}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidValue(`must be an http(s) URL such as ${rules.example}, got "${value}"`);
  }
  if (url.protocol === "http:" && !rules.allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new InvalidValue(
      `must use https (http is accepted for loopback hosts only, or with OAUTH_ALLOW_INSECURE_HTTP=true, never in production), got "${value}"`,
    );
  }
  if (url.hash !== "") throw new InvalidValue(`must not have a #fragment, got "${value}"`);
  return url;
}

/** Browser origins as a browser sends them: scheme, host and port only. */
export function origins(value: string): string[] {
  return list(value).map((origin) => {
    if (origin === "*") {
      throw new InvalidValue(
        'must list origins explicitly; "*" would let any web page call this server with a user\'s token',
      );
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin === "null" || parsed.origin !== origin.replace(/\/$/, "")) {
      throw new InvalidValue(
        `has "${origin}", which is not an origin; write scheme://host[:port] with no path, e.g. https://app.example.com`,
      );
    }
    return parsed.origin;
  });
}

export function hostNames(value: string): string[] {
  return list(value).map((host) => {
    if (!/^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/i.test(host)) {
      throw new InvalidValue(
        `has "${host}", which is not a host name; list names without scheme or port, e.g. mcp.example.com,localhost`,
      );
    }
    return host.toLowerCase();
  });
}

/** The ranges proxy-addr (Fastify's trustProxy) knows by name. */
const NAMED_RANGES = ["loopback", "linklocal", "uniquelocal"];

/** An IP address, or a CIDR whose prefix fits its family. */
function addressOrCidr(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The proxies whose X-Forwarded-For is believed, by address: from anyone else the header is ignored,
 * so a client that reaches the server directly cannot choose the address its rate limits count.
 * `false` (or 0) trusts none. `true` and hop counts are refused: they trust whoever connects.
 */
export function trustProxy(value: string): string[] {
  if (/^(?:false|no|off|0+)$/i.test(value)) return [];
  if (/^(?:true|yes|on|\d+)$/i.test(value)) {
    throw new InvalidValue(
      `must list the addresses of the proxies in front of the server (IPs or CIDRs, comma-separated, e.g. 10.0.0.0/8 or 127.0.0.1), got "${value}": a hop count or true would believe the X-Forwarded-For of any client that connects directly, and let it choose the address its rate limits count`,
    );
  }
  return list(value).map((entry) => {
    if (!NAMED_RANGES.includes(entry) && !addressOrCidr(entry)) {
      throw new InvalidValue(
        `has "${entry}", which is not an IP address, a CIDR (address/prefix) or one of ${NAMED_RANGES.join(", ")}`,
      );
    }
    return entry;
  });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Wrapped keys are ciphertext, safe to mention by index but never echoed. */
export function wrappedKeys(value: string): string[] {
  const keys = list(value);
  keys.forEach((key, index) => {
    if (!BASE64.test(key)) {
      throw new InvalidValue(
        `entry ${index} is not base64; paste the single line printed by roundtrip-kms-keygen, entries separated by commas, newest first`,
      );
    }
  });
  if (keys.length === 0) throw new InvalidValue("is set but lists no wrapped key");
  return keys;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  const normalized = value.toLowerCase();
  const found = allowed.find((option) => option === normalized);
  if (found === undefined) throw new InvalidValue(`must be one of ${allowed.join(", ")}, got "${value}"`);
  return found;
}

/**
 * A node-redis URL: `redis://` or `rediss://` (TLS), with an optional `:password@` and `/db`. Kept as
 * written, since node-redis parses it itself; only the syntax and scheme are checked here.
 */
export function redisUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidValue(
      `must be a URL such as rediss://:password@redis.internal:6379, got a value that is not one`,
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new InvalidValue(
      `must start with redis:// or rediss:// (TLS), e.g. rediss://:password@redis.internal:6379; got the scheme ${url.protocol}`,
    );
  }
  if (url.hostname === "") throw new InvalidValue("must name the Redis host, e.g. redis://127.0.0.1:6379");
  return value;
}

/** Comma-separated node-redis URLs (seed nodes of a cluster, or the Sentinels), each checked as `redisUrl`. */
export function redisUrls(value: string): string[] {
  const urls = value
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url !== "");
  if (urls.length === 0)
    throw new InvalidValue("must list at least one URL, e.g. redis://10.0.0.1:6379,redis://10.0.0.2:6379");
  return urls.map(redisUrl);
}
