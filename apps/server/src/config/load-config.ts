import { isLoopbackHost } from "@roundtrip/sdk/protocol";
import { type Env, EnvSchema } from "./env-schema.js";
import { redisConfig } from "./redis-config.js";
import type {
  AuthConfig,
  DeployerConfig,
  HttpConfig,
  KeySourceConfig,
  MetricsConfig,
  ServerConfig,
} from "./server-config.js";

/** The server refused its configuration; `problems` has one line per variable to fix. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      `Invalid configuration (see .env.example for every variable):\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.problems = problems;
  }
}

export const DEFAULTS = {
  port: 3000,
  host: "127.0.0.1",
  serverName: "roundtrip",
  /** infra/local's interactive client. */
  approvalClientId: "mcp-interactive",
  requiredScopes: ["mcp:tools"],
  toolScopes: { deploy: ["mcp:deploy"] },
  requestStateTtlSeconds: 600,
  /** The SDK's own default: renewed every 10 s while a handler runs. */
  onceLeaseSeconds: 30,
  /** BullMQ's own default lock. */
  taskLockSeconds: 30,
  /** Instant, as a test wants it; a demo sets a few seconds to watch a deploy task's progress. */
  deployRolloutMs: 0,
  rateLimitMax: 300,
  rateLimitWindowMs: 60_000,
  /** Above the per-principal budget, so several users behind one address are not cut short by it. */
  rateLimitAddressMax: 1_200,
  maxBodyBytes: 4 * 1024 * 1024,
  shutdownTimeoutMs: 10_000,
} as const;

/** Paths this server serves itself, which the MCP endpoint must not shadow. */
const RESERVED_PATHS = ["/healthz", "/readyz", "/.well-known", "/approvals", "/callback"];

type Source = Record<string, string | undefined>;

/** Reads and checks the whole configuration; throws ConfigError listing every problem at once. */
export function loadConfig(source: Source, version = "0.0.0"): ServerConfig {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0] ?? "environment")} ${issue.message}`),
    );
  }
  const env = parsed.data;
  const problems: string[] = [];
  const publicUrl = new URL(env.PUBLIC_URL);
  const config: ServerConfig = {
    publicUrl: env.PUBLIC_URL,
    mcpPath: publicUrl.pathname,
    serverName: env.SERVER_NAME ?? DEFAULTS.serverName,
    serverVersion: version,
    auth: authConfig(env, problems),
    deployer: deployerConfig(env, problems),
    keys: keySource(env, problems),
    requestStateTtlSeconds: env.REQUEST_STATE_TTL_SECONDS ?? DEFAULTS.requestStateTtlSeconds,
    onceLeaseSeconds: env.ONCE_LEASE_SECONDS ?? DEFAULTS.onceLeaseSeconds,
    taskLockSeconds: env.TASK_LOCK_SECONDS ?? DEFAULTS.taskLockSeconds,
    deployRolloutMs: env.DEPLOY_ROLLOUT_MS ?? DEFAULTS.deployRolloutMs,
    http: httpConfig(env, publicUrl),
    redis: redisConfig(env, problems),
    log: { level: env.LOG_LEVEL ?? "info", format: env.LOG_FORMAT ?? "json" },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS ?? DEFAULTS.shutdownTimeoutMs,
    instanceName: env.INSTANCE_NAME,
    metrics: metricsConfig(env, problems),
  };
  checkUrls(env, problems);
  if (RESERVED_PATHS.some((path) => config.mcpPath === path || config.mcpPath.startsWith(`${path}/`))) {
    problems.push(
      `PUBLIC_URL has the path ${config.mcpPath}, which this server uses itself; put the MCP endpoint elsewhere, e.g. /mcp`,
    );
  }
  if (publicUrl.search !== "") {
    problems.push("PUBLIC_URL must not have a query string; use the bare endpoint URL");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function authConfig(env: Env, problems: string[]): AuthConfig {
  const introspection = [
    env.OAUTH_INTROSPECTION_URL,
    env.OAUTH_INTROSPECTION_CLIENT_ID,
    env.OAUTH_INTROSPECTION_CLIENT_SECRET,
  ];
  const configured = introspection.filter((value) => value !== undefined).length;
  if (configured > 0 && configured < 3) {
    problems.push(
      "OAUTH_INTROSPECTION_URL, OAUTH_INTROSPECTION_CLIENT_ID and OAUTH_INTROSPECTION_CLIENT_SECRET go together: set all three to verify opaque tokens by introspection, or none to verify JWTs",
    );
  }
  if (configured === 3 && env.OAUTH_JWKS_URI !== undefined) {
    problems.push(
      "OAUTH_JWKS_URI is set together with introspection; introspected tokens are not verified with keys, so unset one of them",
    );
  }
  return {
    issuer: env.OAUTH_ISSUER,
    audiences: env.OAUTH_AUDIENCE ?? [env.PUBLIC_URL],
    requiredScopes: env.OAUTH_REQUIRED_SCOPES ?? [...DEFAULTS.requiredScopes],
    toolScopes:
      env.OAUTH_TOOL_SCOPES ??
      Object.fromEntries(Object.entries(DEFAULTS.toolScopes).map(([k, v]) => [k, [...v]])),
    jwksUri: env.OAUTH_JWKS_URI?.href,
    acceptPlainJwt: env.OAUTH_ACCEPT_PLAIN_JWT ?? false,
    introspection:
      configured === 3
        ? {
            endpoint: env.OAUTH_INTROSPECTION_URL?.href ?? "",
            clientId: env.OAUTH_INTROSPECTION_CLIENT_ID ?? "",
            clientSecret: env.OAUTH_INTROSPECTION_CLIENT_SECRET ?? "",
          }
        : undefined,
    allowInsecureHttp: env.OAUTH_ALLOW_INSECURE_HTTP ?? false,
    dpop: env.OAUTH_DPOP ?? "off",
    approvalClientId: env.APPROVAL_CLIENT_ID ?? DEFAULTS.approvalClientId,
  };
}

function deployerConfig(env: Env, problems: string[]): DeployerConfig | undefined {
  const { DEPLOYER_URL: url, OAUTH_EXCHANGE_CLIENT_ID: clientId, OAUTH_EXCHANGE_CLIENT_SECRET: secret } = env;
  const configured = [url, clientId, secret].filter((value) => value !== undefined).length;
  if (configured === 0) {
    if (env.DEPLOYER_AUDIENCE !== undefined) problems.push("DEPLOYER_AUDIENCE is set without DEPLOYER_URL");
    return undefined;
  }
  if (url === undefined || clientId === undefined || secret === undefined) {
    problems.push(
      "DEPLOYER_URL, OAUTH_EXCHANGE_CLIENT_ID and OAUTH_EXCHANGE_CLIENT_SECRET go together: set all three to roll releases out through the deployer with exchanged tokens, or none",
    );
    return undefined;
  }
  const base = url.href.replace(/\/$/, "");
  return {
    url: base,
    audience: env.DEPLOYER_AUDIENCE ?? base,
    exchangeClientId: clientId,
    exchangeClientSecret: secret,
  };
}

function keySource(env: Env, problems: string[]): KeySourceConfig {
  if (env.KMS_WRAPPED_KEYS !== undefined && env.REQUEST_STATE_KEY_FILE !== undefined) {
    problems.push(
      "KMS_WRAPPED_KEYS and REQUEST_STATE_KEY_FILE are both set; the keys come from one place, so unset one of them",
    );
  }
  if (env.KMS_WRAPPED_KEYS !== undefined) {
    return {
      kind: "kms",
      wrappedKeys: env.KMS_WRAPPED_KEYS,
      service: env.KMS_SERVICE_NAME ?? env.SERVER_NAME ?? DEFAULTS.serverName,
      serviceFrom:
        env.KMS_SERVICE_NAME !== undefined
          ? "KMS_SERVICE_NAME"
          : env.SERVER_NAME !== undefined
            ? "SERVER_NAME"
            : "the default server name",
      keyId: env.KMS_KEY_ID,
      endpoint: env.KMS_ENDPOINT?.href,
    };
  }
  const strayKms = (["KMS_KEY_ID", "KMS_SERVICE_NAME", "KMS_ENDPOINT"] as const).filter(
    (name) => env[name] !== undefined,
  );
  if (strayKms.length > 0) {
    problems.push(
      `${strayKms.join(", ")} ${strayKms.length > 1 ? "are" : "is"} set but KMS_WRAPPED_KEYS is empty; mint a wrapped key with roundtrip-kms-keygen and set KMS_WRAPPED_KEYS, or unset ${strayKms.length > 1 ? "them" : "it"}`,
    );
  }
  if (env.REQUEST_STATE_KEY_FILE !== undefined) return { kind: "file", path: env.REQUEST_STATE_KEY_FILE };
  return { kind: "ephemeral" };
}

function httpConfig(env: Env, publicUrl: URL): HttpConfig {
  const host = env.HOST ?? DEFAULTS.host;
  return {
    host,
    port: env.PORT ?? DEFAULTS.port,
    corsOrigins: env.CORS_ORIGINS ?? [],
    allowedHosts: env.ALLOWED_HOSTS ?? defaultAllowedHosts(host, publicUrl),
    trustProxy: env.TRUST_PROXY ?? [],
    maxBodyBytes: env.MAX_BODY_BYTES ?? DEFAULTS.maxBodyBytes,
    rateLimit: {
      max: env.RATE_LIMIT_MAX ?? DEFAULTS.rateLimitMax,
      addressMax: env.RATE_LIMIT_ADDRESS_MAX ?? DEFAULTS.rateLimitAddressMax,
      windowMs: env.RATE_LIMIT_WINDOW_MS ?? DEFAULTS.rateLimitWindowMs,
    },
  };
}

/**
 * The scrape endpoint listens where the MCP port does unless METRICS_HOST says otherwise: a container
 * that binds HOST=0.0.0.0 is then scrapable by its neighbours, and a loopback-bound server stays local.
 */
function metricsConfig(env: Env, problems: string[]): MetricsConfig | undefined {
  if (env.METRICS_PORT === undefined) {
    if (env.METRICS_HOST !== undefined) {
      problems.push(
        "METRICS_HOST is set but METRICS_PORT is empty; set METRICS_PORT to serve /metrics, or unset METRICS_HOST",
      );
    }
    return undefined;
  }
  const port = env.PORT ?? DEFAULTS.port;
  if (env.METRICS_PORT === port) {
    problems.push(
      `METRICS_PORT is ${port}, the port the MCP endpoint listens on; give the scrape endpoint a port of its own, e.g. 9464`,
    );
  }
  return { host: env.METRICS_HOST ?? env.HOST ?? DEFAULTS.host, port: env.METRICS_PORT };
}

/**
 * A server bound to loopback is the classic DNS-rebinding target, so it answers only to loopback
 * names and its public host; one bound elsewhere sits behind a proxy that routes by Host already.
 */
function defaultAllowedHosts(host: string, publicUrl: URL): string[] | undefined {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  if (!isLoopbackHost(bracketed)) return undefined;
  return [...new Set(["localhost", "127.0.0.1", "[::1]", publicUrl.hostname.toLowerCase()])];
}

function checkUrls(env: Env, problems: string[]): void {
  const insecureOk = env.OAUTH_ALLOW_INSECURE_HTTP ?? false;
  const urls: [string, URL | undefined][] = [
    ["PUBLIC_URL", new URL(env.PUBLIC_URL)],
    ["OAUTH_ISSUER", new URL(env.OAUTH_ISSUER)],
    ["OAUTH_JWKS_URI", env.OAUTH_JWKS_URI],
    ["OAUTH_INTROSPECTION_URL", env.OAUTH_INTROSPECTION_URL],
    ["DEPLOYER_URL", env.DEPLOYER_URL],
  ];
  for (const [name, url] of urls) {
    if (url?.protocol === "http:" && !insecureOk && !isLoopbackHost(url.hostname)) {
      problems.push(
        `${name} must use https (http is accepted for loopback hosts only, or with OAUTH_ALLOW_INSECURE_HTTP=true, never in production), got "${url.href}"`,
      );
    }
  }
}
