import type { LevelWithSilent } from "pino";

/** Where the request-state keys come from; exactly one source is in force. */
export type KeySourceConfig =
  | {
      kind: "kms";
      /** Base64 wrapped data keys, newest (minting) first. */
      wrappedKeys: string[];
      /** KMS encryption context `{ service }` the keys were minted for. */
      service: string;
      /** Which setting named it, for errors an operator acts on. */
      serviceFrom: "KMS_SERVICE_NAME" | "SERVER_NAME" | "the default server name";
      /** Restricts Decrypt to this KMS key (id, ARN or alias). */
      keyId: string | undefined;
      /** Another KMS endpoint (an emulator); otherwise the AWS SDK's own resolution. */
      endpoint: string | undefined;
    }
  | { kind: "file"; path: string }
  | { kind: "ephemeral" };

export interface IntrospectionConfig {
  endpoint: string;
  clientId: string;
  clientSecret: string;
}

export interface AuthConfig {
  issuer: string;
  /** Accepted `aud` values; the first is the canonical URI. */
  audiences: string[];
  /** Scopes every MCP request needs; also what the metadata lists as scopes_supported. */
  requiredScopes: string[];
  /** Extra scopes per tool name, e.g. `{ deploy: ["mcp:deploy"] }`. */
  toolScopes: Record<string, string[]>;
  jwksUri: string | undefined;
  /** Accept access tokens whose header typ is `JWT` or absent, not only RFC 9068 `at+jwt`. */
  acceptPlainJwt: boolean;
  /** When set, tokens are verified by RFC 7662 introspection instead of as JWTs. */
  introspection: IntrospectionConfig | undefined;
  allowInsecureHttp: boolean;
  /**
   * DPoP-bound tokens (RFC 9449), with a proof made for PUBLIC_URL: `off` takes bearer tokens only,
   * `accept` either, `require` DPoP only. A bound token sent as Bearer is refused in every mode.
   */
  dpop: "off" | "accept" | "require";
  /**
   * The public client (authorization code + PKCE) the deploy approval page signs people in with; its
   * redirect URI is `<page origin>/callback`, registered as a loopback or exact URI at the issuer.
   */
  approvalClientId: string;
}

/**
 * The downstream deployer API the deploy tool rolls approved releases out through, with a token the
 * authorization server exchanges for the caller (RFC 8693) using this server's exchange client.
 */
export interface DeployerConfig {
  url: string;
  /** The deployer's audience at the authorization server; default its URL. */
  audience: string;
  exchangeClientId: string;
  exchangeClientSecret: string;
}

export interface HttpConfig {
  host: string;
  port: number;
  /** Browser origins allowed by CORS and by the Origin check; empty admits loopback pages only. */
  corsOrigins: string[];
  /** Host header allow-list; undefined admits any Host. */
  allowedHosts: string[] | undefined;
  /**
   * The proxies (IPs, CIDRs, or proxy-addr's loopback, linklocal, uniquelocal) whose X-Forwarded-For
   * is believed; empty believes none. Fastify's trustProxy, never a hop count or `true`.
   */
  trustProxy: string[];
  maxBodyBytes: number;
  /** `max` per verified principal; `addressMax` per client address, counted before any token is verified. */
  rateLimit: { max: number; addressMax: number; windowMs: number };
}

/**
 * Where the fleet's Redis is, in one of its topologies: one server (`url`), a Redis Cluster (`clusterUrls`,
 * its seed nodes) or a primary found through Sentinel (`sentinelUrls` and the `sentinelMaster` name they
 * watch); `caFile` is a PEM file of the private CA that signed Redis's TLS certificate.
 */
export type RedisConfig = (
  | { url: string; clusterUrls?: undefined; sentinelUrls?: undefined }
  | { url?: undefined; clusterUrls: string[]; sentinelUrls?: undefined }
  | { url?: undefined; clusterUrls?: undefined; sentinelUrls: string[]; sentinelMaster: string }
) & {
  caFile?: string | undefined;
  /**
   * Serve once-rounds from a Redis that says it can forget acknowledged writes (no append-only file,
   * an evicting maxmemory-policy, a replica): development only, warned at every start. Default false.
   */
  allowForgetful?: boolean;
  /**
   * Count a once-round's writes (and an approval's) as made only once `replicas` replicas acknowledged
   * them within `timeoutMs` (Redis `WAIT`); fewer fails the round closed. A Redis without an append-only
   * file then keeps what it acknowledged on its replicas, as ElastiCache does, and is accepted at start
   * while that many replicas are connected (REDIS_REPLICA_ACKS, REDIS_REPLICA_ACK_TIMEOUT_MS).
   */
  replicaAcks?: { replicas: number; timeoutMs: number };
};

/** The Prometheus scrape endpoint, `/metrics` on its own listener, apart from the MCP port. */
export interface MetricsConfig {
  host: string;
  port: number;
}

export interface ServerConfig {
  /** The canonical resource URI, e.g. `https://mcp.example.com/mcp`: what clients call and tokens name. */
  publicUrl: string;
  /** The MCP endpoint's path, taken from publicUrl. */
  mcpPath: string;
  /** The MCP server name; also the audience of sealed requestState, so the same on every instance. */
  serverName: string;
  serverVersion: string;
  auth: AuthConfig;
  /** Unset: the deploy tool records approved releases in its log only. */
  deployer: DeployerConfig | undefined;
  keys: KeySourceConfig;
  requestStateTtlSeconds: number;
  /**
   * How long a once-round's lease holds unless its holder renews it: how soon a round whose instance
   * died (or whose lease a failed-over Redis kept though it was never confirmed) goes to the next attempt.
   */
  onceLeaseSeconds: number;
  /**
   * How long a task's worker holds it without renewing: how soon a task whose worker died runs again
   * on another (tasks are durable only with Redis, see `redis`).
   */
  taskLockSeconds: number;
  /** How long the deploy tool's stand-in rollout takes, reported as the task's status meanwhile. */
  deployRolloutMs: number;
  http: HttpConfig;
  /**
   * Where a fleet keeps what is not in the sealed requestState (approvals, once-rounds); undefined keeps
   * it in this process, which is right for one instance only.
   */
  redis: RedisConfig | undefined;
  log: { level: LevelWithSilent; format: "json" | "pretty" };
  shutdownTimeoutMs: number;
  /** Where Prometheus scrapes the server's metrics; undefined serves none (METRICS_PORT unset). */
  metrics?: MetricsConfig | undefined;
  /** Sent back as `Roundtrip-Instance` on every response, so a fleet's operator sees who answered. */
  instanceName?: string | undefined;
}
