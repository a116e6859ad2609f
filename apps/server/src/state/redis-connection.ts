import { readFileSync } from "node:fs";
import type { RedisBusClient } from "@roundtrip/sdk/redis";
import type { RedisConfig } from "../config/server-config.js";

/** What the shared state needs of a node-redis client, whatever its topology. */
export type StateClient = RedisBusClient & {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "ready", listener: () => void): unknown;
  once(event: "ready", listener: () => void): unknown;
};

export interface RedisConnection {
  readonly client: StateClient;
  /** Where Redis is, for the logs: hosts and ports, never a URL, which may hold a password. */
  readonly description: Record<string, string | number>;
  /** Why a connection failed, in words an operator can act on. */
  explain(error: Error): string;
}

// Reconnects back off from 50 ms to 2 s: quick after a blip, gentle on a Redis that is away.
const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 2000);

function address(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || 6379}`;
}

/** The PEM of the private CA, read once at startup; a file that cannot be read stops the start. */
function readCa(caFile: string | undefined): { ca: string } | Record<string, never> {
  if (caFile === undefined) return {};
  try {
    return { ca: readFileSync(caFile, "utf8") };
  } catch (error) {
    throw new Error(
      `REDIS_TLS_CA_FILE ${caFile} could not be read (${(error as Error).message}): point it at the PEM file of the CA that signed Redis's certificate`,
    );
  }
}

/** What Node's TLS says when no trusted CA signed the peer's certificate chain. */
const UNTRUSTED_CERTIFICATE = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_SIGNATURE_FAILURE",
]);

/**
 * A client of the fleet's Redis in the configured topology, not yet connected: one server
 * (`createClient`), a Redis Cluster (`createCluster` from its seed nodes) or the primary Sentinel names
 * (`createSentinel`). Commands fail at once while disconnected (no offline queue), and a private CA
 * (REDIS_TLS_CA_FILE) is trusted for TLS (`rediss://`) to every node.
 */
export async function redisConnection(
  config: RedisConfig,
  /** BullMQ sends before the connection is ready and needs the offline queue; its calls are bounded anyway. */
  queueing: { offlineQueue?: boolean } = {},
): Promise<RedisConnection> {
  const disableOfflineQueue = queueing.offlineQueue !== true;
  const { createClient, createCluster, createSentinel } = await import("redis");
  const socket = { reconnectStrategy, ...readCa(config.caFile) };
  const urls = config.url !== undefined ? [config.url] : (config.clusterUrls ?? config.sentinelUrls);
  const tls = urls.some((url) => url.startsWith("rediss:"));
  const where = urls.map(address).join(", ");
  // A plaintext Redis reads a TLS handshake as the start of a command and waits for its end, which
  // never comes: node-redis then gives up on connecting, saying only "Connection timeout".
  const explain = (error: Error): string => {
    if (!tls) return error.message;
    if (error.name === "ConnectionTimeoutError" || /timeout/i.test(error.message)) {
      return `${error.message}: no TLS handshake with the Redis at ${where} completed in time. A rediss:// URL needs Redis's TLS port (its tls-port): if that port is plaintext, point at the TLS port or write redis://; otherwise the host is unreachable or slow`;
    }
    if (
      /wrong version number|packet length too long|EPROTO/i.test(
        `${error.message} ${(error as { code?: string }).code}`,
      )
    ) {
      return `${error.message}: the Redis at ${where} does not answer TLS; a rediss:// URL needs Redis's TLS port (or write redis:// for a plaintext one)`;
    }
    const code = (error as { code?: string }).code ?? "";
    if (UNTRUSTED_CERTIFICATE.has(code)) {
      return config.caFile === undefined
        ? `${error.message}: the certificate of the Redis at ${where} is not signed by a CA this server trusts; for a private CA, set REDIS_TLS_CA_FILE to the PEM file of the CA that signed it`
        : `${error.message}: the certificate of the Redis at ${where} is not signed by the CA in REDIS_TLS_CA_FILE (${config.caFile}); point it at the PEM file of the CA that signed Redis's certificate`;
    }
    if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
      return `${error.message}: the certificate of the Redis at ${where} does not name that host; connect by a name (or IP address) its certificate lists`;
    }
    return error.message;
  };
  if (config.url !== undefined) {
    const client: StateClient = createClient({ url: config.url, disableOfflineQueue, socket });
    const { hostname, port } = new URL(config.url);
    const description = { stateStore: "redis", redisHost: hostname, redisPort: Number(port || 6379) };
    return { client, description: { ...description, redisTls: tls ? "yes" : "no" }, explain };
  }
  if (config.clusterUrls !== undefined) {
    const client: StateClient = createCluster({
      rootNodes: config.clusterUrls.map((url) => ({ url })),
      defaults: { disableOfflineQueue, socket: tls ? { ...socket, tls: true } : socket },
    });
    const description = {
      stateStore: "redis cluster",
      redisSeeds: config.clusterUrls.map(address).join(","),
    };
    return { client, description: { ...description, redisTls: tls ? "yes" : "no" }, explain };
  }
  // The Sentinels' URLs carry the credentials and the scheme, which the primary and replicas share.
  const [first] = config.sentinelUrls.map((url) => new URL(url));
  const credentials = {
    ...(first?.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first?.password ? { password: decodeURIComponent(first.password) } : {}),
  };
  const options = { ...credentials, socket: tls ? { ...socket, tls: true as const } : socket };
  const client: StateClient = createSentinel({
    name: config.sentinelMaster,
    sentinelRootNodes: config.sentinelUrls.map((url) => {
      const { hostname, port } = new URL(url);
      return { host: hostname, port: Number(port || 26379) };
    }),
    nodeClientOptions: { ...options, disableOfflineQueue },
    sentinelClientOptions: options,
  });
  const description = {
    stateStore: "redis sentinel",
    redisSentinels: config.sentinelUrls.map(address).join(","),
    redisSentinelMaster: config.sentinelMaster,
  };
  return { client, description: { ...description, redisTls: tls ? "yes" : "no" }, explain };
}
