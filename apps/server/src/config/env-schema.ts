import * as z from "zod";
import {
  boolean,
  hostNames,
  httpUrl,
  InvalidValue,
  integer,
  oneOf,
  origins,
  redisUrl,
  redisUrls,
  scopes,
  toolScopes,
  trustProxy,
  wrappedKeys,
} from "./env-values.js";

/** An optional variable: empty counts as unset, anything else must parse. */
function optional<T>(parse: (value: string) => T) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T | undefined => {
      const value = raw?.trim();
      if (value === undefined || value === "") return undefined;
      try {
        return parse(value);
      } catch (error) {
        if (!(error instanceof InvalidValue)) throw error;
        ctx.addIssue({ code: "custom", message: error.message });
        return z.NEVER;
      }
    });
}

/** A variable the server cannot start without; `missing` says what to set it to. */
function required<T>(parse: (value: string) => T, missing: string) {
  return optional(parse).transform((value, ctx): T => {
    if (value !== undefined) return value;
    ctx.addIssue({ code: "custom", message: `is required: ${missing}` });
    return z.NEVER;
  });
}

const text = (value: string) => value;
// Syntax only: whether http is acceptable depends on OAUTH_ALLOW_INSECURE_HTTP, checked afterwards.
const anyHttpUrl = (example: string) => (value: string) =>
  httpUrl(value, { allowInsecureHttp: true, example });
/**
 * Identifiers compared character for character (the canonical URI with `aud`, the issuer with `iss`):
 * checked as URLs but kept as written, since parsing would add a "/" to a bare origin.
 */
const identifierUrl = (example: string) => (value: string) => {
  anyHttpUrl(example)(value);
  return value;
};

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * Every environment variable the server reads. `.env.example` documents each one; keep the two in step.
 */
export const EnvSchema = z.object({
  PORT: optional((v) => integer(v, 0, 65535, "a TCP port; 0 picks a free one")),
  HOST: optional(text),
  METRICS_PORT: optional((v) => integer(v, 1, 65535, "a TCP port for the Prometheus scrape endpoint")),
  METRICS_HOST: optional(text),
  PUBLIC_URL: required(
    identifierUrl("https://mcp.example.com/mcp"),
    "set it to the URL clients use for the MCP endpoint, e.g. https://mcp.example.com/mcp; it is the audience access tokens must name",
  ),
  SERVER_NAME: optional((v) => {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(v)) {
      throw new InvalidValue(`must be letters, digits, ".", "_" or "-" (at most 100), got "${v}"`);
    }
    return v;
  }),
  OAUTH_ISSUER: required(
    identifierUrl("https://auth.example.com"),
    "set it to your authorization server's issuer identifier, exactly as its metadata and tokens spell it",
  ),
  OAUTH_AUDIENCE: optional((v) =>
    v.split(",").map((audience) => identifierUrl("https://mcp.example.com/mcp")(audience.trim())),
  ),
  OAUTH_REQUIRED_SCOPES: optional(scopes),
  OAUTH_TOOL_SCOPES: optional(toolScopes),
  OAUTH_JWKS_URI: optional(anyHttpUrl("https://auth.example.com/.well-known/jwks.json")),
  OAUTH_ACCEPT_PLAIN_JWT: optional(boolean),
  OAUTH_INTROSPECTION_URL: optional(anyHttpUrl("https://auth.example.com/oauth/introspect")),
  OAUTH_INTROSPECTION_CLIENT_ID: optional(text),
  OAUTH_INTROSPECTION_CLIENT_SECRET: optional(text),
  OAUTH_ALLOW_INSECURE_HTTP: optional(boolean),
  OAUTH_DPOP: optional((v) => oneOf(v, ["off", "accept", "require"] as const)),
  APPROVAL_CLIENT_ID: optional(text),
  DEPLOYER_URL: optional(anyHttpUrl("http://127.0.0.1:4100")),
  DEPLOYER_AUDIENCE: optional(text),
  OAUTH_EXCHANGE_CLIENT_ID: optional(text),
  OAUTH_EXCHANGE_CLIENT_SECRET: optional(text),
  KMS_WRAPPED_KEYS: optional(wrappedKeys),
  KMS_KEY_ID: optional(text),
  KMS_SERVICE_NAME: optional(text),
  KMS_ENDPOINT: optional(anyHttpUrl("http://127.0.0.1:5000")),
  REQUEST_STATE_KEY_FILE: optional(text),
  REQUEST_STATE_TTL_SECONDS: optional((v) => integer(v, 1, 86_400, "seconds")),
  ONCE_LEASE_SECONDS: optional((v) => integer(v, 3, 600, "seconds")),
  TASK_LOCK_SECONDS: optional((v) => integer(v, 2, 600, "seconds")),
  DEPLOY_ROLLOUT_MS: optional((v) => integer(v, 0, 600_000, "milliseconds")),
  REDIS_URL: optional(redisUrl),
  REDIS_CLUSTER_URLS: optional(redisUrls),
  REDIS_SENTINEL_URLS: optional(redisUrls),
  REDIS_SENTINEL_MASTER: optional(text),
  REDIS_TLS_CA_FILE: optional(text),
  REDIS_REPLICA_ACKS: optional((v) => integer(v, 1, 16, "replicas")),
  REDIS_REPLICA_ACK_TIMEOUT_MS: optional((v) => integer(v, 1, 60_000, "milliseconds")),
  ROUNDTRIP_ALLOW_FORGETFUL_STORE: optional(boolean),
  CORS_ORIGINS: optional(origins),
  ALLOWED_HOSTS: optional(hostNames),
  TRUST_PROXY: optional(trustProxy),
  RATE_LIMIT_MAX: optional((v) => integer(v, 1, 1_000_000, "requests")),
  RATE_LIMIT_ADDRESS_MAX: optional((v) => integer(v, 1, 10_000_000, "requests")),
  RATE_LIMIT_WINDOW_MS: optional((v) => integer(v, 1_000, 86_400_000, "milliseconds")),
  MAX_BODY_BYTES: optional((v) => integer(v, 1_024, 64 * 1024 * 1024, "bytes")),
  LOG_LEVEL: optional((v) => oneOf(v, LOG_LEVELS)),
  LOG_FORMAT: optional((v) => oneOf(v, ["json", "pretty"] as const)),
  SHUTDOWN_TIMEOUT_MS: optional((v) => integer(v, 0, 600_000, "milliseconds")),
  INSTANCE_NAME: optional((v) => {
    // It goes out in a response header on every request, so only a short, plain token.
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(v)) {
      throw new InvalidValue(`must be letters, digits, ".", "_" or "-" (at most 64), got "${v}"`);
    }
    return v;
  }),
});

export type Env = z.output<typeof EnvSchema>;
