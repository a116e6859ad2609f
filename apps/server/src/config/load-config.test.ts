import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../index.js";

const MINIMAL = { PUBLIC_URL: "https://mcp.example.com/mcp", OAUTH_ISSUER: "https://auth.example.com" };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected the configuration to be refused");
}

describe("loadConfig", () => {
  it("fills every default from two variables", () => {
    const config = loadConfig(MINIMAL, "1.2.3");
    expect(config).toMatchObject({
      publicUrl: "https://mcp.example.com/mcp",
      mcpPath: "/mcp",
      serverName: "roundtrip",
      serverVersion: "1.2.3",
      keys: { kind: "ephemeral" },
      requestStateTtlSeconds: 600,
      onceLeaseSeconds: 30,
      taskLockSeconds: 30,
      deployRolloutMs: 0,
      log: { level: "info", format: "json" },
      shutdownTimeoutMs: 10_000,
      auth: {
        issuer: "https://auth.example.com",
        audiences: ["https://mcp.example.com/mcp"],
        requiredScopes: ["mcp:tools"],
        toolScopes: { deploy: ["mcp:deploy"] },
        acceptPlainJwt: false,
        introspection: undefined,
      },
      http: {
        host: "127.0.0.1",
        port: 3000,
        corsOrigins: [],
        allowedHosts: ["localhost", "127.0.0.1", "[::1]", "mcp.example.com"],
        trustProxy: [],
        maxBodyBytes: 4 * 1024 * 1024,
        rateLimit: { max: 300, windowMs: 60_000 },
      },
    });
  });

  it("keeps the canonical URI and the issuer exactly as written", () => {
    const config = loadConfig({
      PUBLIC_URL: "https://mcp.example.com",
      OAUTH_ISSUER: "https://tenant.auth.example/",
    });
    expect([config.publicUrl, config.auth.issuer, config.mcpPath]).toEqual([
      "https://mcp.example.com",
      "https://tenant.auth.example/",
      "/",
    ]);
  });

  it("names every missing required variable and says what to set", () => {
    const problems = problemsOf({});
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^PUBLIC_URL is required: set it to the URL clients use/);
    expect(problems[1]).toMatch(/^OAUTH_ISSUER is required: set it to your authorization server's issuer/);
  });

  it("reports every bad value at once, each under its variable", () => {
    const problems = problemsOf({
      ...MINIMAL,
      PORT: "http",
      LOG_LEVEL: "loud",
      OAUTH_ACCEPT_PLAIN_JWT: "maybe",
      REQUEST_STATE_TTL_SECONDS: "0",
    });
    expect(problems).toEqual([
      'PORT must be a whole number from 0 to 65535 (a TCP port; 0 picks a free one), got "http"',
      'OAUTH_ACCEPT_PLAIN_JWT must be true or false, got "maybe"',
      'REQUEST_STATE_TTL_SECONDS must be a whole number from 1 to 86400 (seconds), got "0"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ]);
  });

  it("requires https for authorization URLs off loopback, unless explicitly allowed", () => {
    const env = { ...MINIMAL, OAUTH_ISSUER: "http://auth.internal" };
    expect(problemsOf(env)).toEqual([
      expect.stringMatching(/^OAUTH_ISSUER must use https .*OAUTH_ALLOW_INSECURE_HTTP/),
    ]);
    expect(loadConfig({ ...env, OAUTH_ALLOW_INSECURE_HTTP: "true" }).auth.issuer).toBe(
      "http://auth.internal",
    );
    expect(loadConfig({ ...MINIMAL, OAUTH_ISSUER: "http://127.0.0.1:9000" }).auth.issuer).toBe(
      "http://127.0.0.1:9000",
    );
  });

  it("reads per-tool scopes and refuses an entry without scopes", () => {
    const config = loadConfig({
      ...MINIMAL,
      OAUTH_TOOL_SCOPES: "deploy=mcp:deploy; purge=mcp:admin mcp:deploy",
    });
    expect(config.auth.toolScopes).toEqual({ deploy: ["mcp:deploy"], purge: ["mcp:admin", "mcp:deploy"] });
    expect(problemsOf({ ...MINIMAL, OAUTH_TOOL_SCOPES: "deploy" })).toEqual([
      expect.stringMatching(/^OAUTH_TOOL_SCOPES has "deploy"; write each tool as <tool>=<scope>/),
    ]);
  });

  it("takes KMS keys, with the server name as their service unless told otherwise", () => {
    const config = loadConfig({ ...MINIMAL, SERVER_NAME: "billing", KMS_WRAPPED_KEYS: "AQID, BAUG" });
    expect(config.keys).toEqual({
      kind: "kms",
      wrappedKeys: ["AQID", "BAUG"],
      service: "billing",
      serviceFrom: "SERVER_NAME",
      keyId: undefined,
      endpoint: undefined,
    });
    const named = loadConfig({ ...MINIMAL, KMS_WRAPPED_KEYS: "AQID", KMS_SERVICE_NAME: "ledger" });
    expect([named.keys.kind === "kms" && named.keys.serviceFrom]).toEqual(["KMS_SERVICE_NAME"]);
  });

  it("refuses two key sources, and KMS settings without wrapped keys", () => {
    expect(problemsOf({ ...MINIMAL, KMS_WRAPPED_KEYS: "AQID", REQUEST_STATE_KEY_FILE: "/run/keys" })).toEqual(
      [expect.stringMatching(/^KMS_WRAPPED_KEYS and REQUEST_STATE_KEY_FILE are both set/)],
    );
    expect(problemsOf({ ...MINIMAL, KMS_KEY_ID: "alias/roundtrip" })).toEqual([
      expect.stringMatching(
        /^KMS_KEY_ID is set but KMS_WRAPPED_KEYS is empty; mint a wrapped key with roundtrip-kms-keygen/,
      ),
    ]);
  });

  it("names a wrapped key that is not base64 by position, without echoing any key", () => {
    const problems = problemsOf({ ...MINIMAL, KMS_WRAPPED_KEYS: "AQID,not base64!" });
    expect(problems).toEqual([expect.stringMatching(/^KMS_WRAPPED_KEYS entry 1 is not base64/)]);
    expect(problems.join()).not.toContain("AQID");
  });

  it("wants all three introspection settings or none, and never echoes the secret", () => {
    const problems = problemsOf({
      ...MINIMAL,
      OAUTH_INTROSPECTION_URL: "https://auth.example.com/introspect",
      OAUTH_INTROSPECTION_CLIENT_SECRET: "s3cr3t-value-1234",
    });
    expect(problems).toEqual([expect.stringMatching(/go together: set all three/)]);
    expect(problems.join()).not.toContain("s3cr3t-value-1234");
    const config = loadConfig({
      ...MINIMAL,
      OAUTH_INTROSPECTION_URL: "https://auth.example.com/introspect",
      OAUTH_INTROSPECTION_CLIENT_ID: "mcp-rs",
      OAUTH_INTROSPECTION_CLIENT_SECRET: "s3cr3t-value-1234",
    });
    expect(config.auth.introspection?.clientId).toBe("mcp-rs");
  });

  it("refuses a wildcard or a path in CORS_ORIGINS", () => {
    expect(problemsOf({ ...MINIMAL, CORS_ORIGINS: "*" })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS must list origins explicitly/),
    ]);
    expect(problemsOf({ ...MINIMAL, CORS_ORIGINS: "https://app.example.com/ui" })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS has "https:\/\/app.example.com\/ui", which is not an origin/),
    ]);
    expect(
      loadConfig({ ...MINIMAL, CORS_ORIGINS: "https://app.example.com, http://localhost:5173" }).http
        .corsOrigins,
    ).toEqual(["https://app.example.com", "http://localhost:5173"]);
  });

  it("serves /metrics only with METRICS_PORT, where the MCP port listens unless METRICS_HOST says otherwise", () => {
    expect(loadConfig(MINIMAL).metrics).toBeUndefined();
    expect(loadConfig({ ...MINIMAL, METRICS_PORT: "9464" }).metrics).toEqual({
      host: "127.0.0.1",
      port: 9464,
    });
    expect(loadConfig({ ...MINIMAL, HOST: "0.0.0.0", METRICS_PORT: "9464" }).metrics).toEqual({
      host: "0.0.0.0",
      port: 9464,
    });
    expect(
      loadConfig({ ...MINIMAL, HOST: "0.0.0.0", METRICS_HOST: "127.0.0.1", METRICS_PORT: "9464" }).metrics,
    ).toEqual({ host: "127.0.0.1", port: 9464 });
  });

  it("refuses a METRICS_PORT that is not a port or is the MCP port, and METRICS_HOST alone", () => {
    expect(problemsOf({ ...MINIMAL, METRICS_PORT: "0" })).toEqual([
      expect.stringMatching(/^METRICS_PORT .*Prometheus scrape endpoint/),
    ]);
    expect(problemsOf({ ...MINIMAL, METRICS_PORT: "scrape" })).toEqual([
      expect.stringMatching(/^METRICS_PORT /),
    ]);
    expect(problemsOf({ ...MINIMAL, PORT: "8080", METRICS_PORT: "8080" })).toEqual([
      "METRICS_PORT is 8080, the port the MCP endpoint listens on; give the scrape endpoint a port of its own, e.g. 9464",
    ]);
    expect(problemsOf({ ...MINIMAL, METRICS_PORT: "3000" })).toEqual([
      expect.stringMatching(/^METRICS_PORT is 3000/),
    ]);
    expect(problemsOf({ ...MINIMAL, METRICS_HOST: "0.0.0.0" })).toEqual([
      "METRICS_HOST is set but METRICS_PORT is empty; set METRICS_PORT to serve /metrics, or unset METRICS_HOST",
    ]);
  });

  it("refuses an MCP path that this server already serves", () => {
    expect(problemsOf({ ...MINIMAL, PUBLIC_URL: "https://mcp.example.com/healthz" })).toEqual([
      expect.stringMatching(/^PUBLIC_URL has the path \/healthz, which this server uses itself/),
    ]);
  });

  it("checks Host only when bound to loopback, unless a list is given", () => {
    expect(loadConfig({ ...MINIMAL, HOST: "0.0.0.0" }).http.allowedHosts).toBeUndefined();
    expect(loadConfig({ ...MINIMAL, HOST: "::1" }).http.allowedHosts).toContain("[::1]");
    expect(loadConfig({ ...MINIMAL, ALLOWED_HOSTS: "MCP.example.com" }).http.allowedHosts).toEqual([
      "mcp.example.com",
    ]);
  });

  it("takes the addresses of the proxies for TRUST_PROXY: IPs, CIDRs and proxy-addr's named ranges", () => {
    const trusted = (value: string) => loadConfig({ ...MINIMAL, TRUST_PROXY: value }).http.trustProxy;
    expect(trusted("10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1")).toEqual([
      "10.0.0.0/8",
      "192.168.1.7",
      "fd00::/8",
      "::1",
    ]);
    expect(trusted("loopback,uniquelocal")).toEqual(["loopback", "uniquelocal"]);
    expect(trusted("false")).toEqual([]);
    expect(trusted("0")).toEqual([]);
  });

  it.each(["1", "2", "true", "yes"])(
    "refuses TRUST_PROXY=%s, which would believe any client, and says what to set",
    (value) => {
      expect(problemsOf({ ...MINIMAL, TRUST_PROXY: value })).toEqual([
        `TRUST_PROXY must list the addresses of the proxies in front of the server (IPs or CIDRs, comma-separated, e.g. 10.0.0.0/8 or 127.0.0.1), got "${value}": a hop count or true would believe the X-Forwarded-For of any client that connects directly, and let it choose the address its rate limits count`,
      ]);
    },
  );

  it("names an entry of TRUST_PROXY that is neither an address nor a CIDR", () => {
    for (const [value, entry] of [
      ["10.0.0.1,lb", "lb"],
      ["10.0.0.0/33", "10.0.0.0/33"],
      ["fd00::/129", "fd00::/129"],
      ["10.0.0.0/x", "10.0.0.0/x"],
    ]) {
      expect(problemsOf({ ...MINIMAL, TRUST_PROXY: value as string })).toEqual([
        `TRUST_PROXY has "${entry}", which is not an IP address, a CIDR (address/prefix) or one of loopback, linklocal, uniquelocal`,
      ]);
    }
  });

  describe("the fleet's Redis", () => {
    it("takes one topology: a URL, cluster seeds, or Sentinels with the primary's name", () => {
      expect(loadConfig({ ...MINIMAL, REDIS_URL: "redis://r:6379" }).redis).toEqual({
        url: "redis://r:6379",
      });
      expect(loadConfig({ ...MINIMAL, REDIS_CLUSTER_URLS: "redis://a:7000, redis://b:7001" }).redis).toEqual({
        clusterUrls: ["redis://a:7000", "redis://b:7001"],
      });
      expect(
        loadConfig({
          ...MINIMAL,
          REDIS_SENTINEL_URLS: "rediss://s1:26379,rediss://s2:26379",
          REDIS_SENTINEL_MASTER: "mymaster",
          REDIS_TLS_CA_FILE: "/etc/roundtrip/redis-ca.pem",
        }).redis,
      ).toEqual({
        sentinelUrls: ["rediss://s1:26379", "rediss://s2:26379"],
        sentinelMaster: "mymaster",
        caFile: "/etc/roundtrip/redis-ca.pem",
      });
      expect(loadConfig(MINIMAL).redis).toBeUndefined();
      expect(
        loadConfig({ ...MINIMAL, REDIS_URL: "redis://r:6379", ROUNDTRIP_ALLOW_FORGETFUL_STORE: "1" }).redis,
      ).toEqual({ url: "redis://r:6379", allowForgetful: true });
    });

    it("takes a once-round lease of 3 to 600 seconds, naming the range otherwise", () => {
      expect(loadConfig({ ...MINIMAL, ONCE_LEASE_SECONDS: "5" }).onceLeaseSeconds).toBe(5);
      expect(problemsOf({ ...MINIMAL, ONCE_LEASE_SECONDS: "2" })).toEqual([
        'ONCE_LEASE_SECONDS must be a whole number from 3 to 600 (seconds), got "2"',
      ]);
    });

    it("waits for replicas with REDIS_REPLICA_ACKS, its timeout defaulting to a second", () => {
      expect(loadConfig({ ...MINIMAL, REDIS_URL: "redis://r:6379", REDIS_REPLICA_ACKS: "1" }).redis).toEqual({
        url: "redis://r:6379",
        replicaAcks: { replicas: 1, timeoutMs: 1000 },
      });
      expect(
        loadConfig({
          ...MINIMAL,
          REDIS_SENTINEL_URLS: "redis://s:26379",
          REDIS_SENTINEL_MASTER: "mymaster",
          REDIS_REPLICA_ACKS: "2",
          REDIS_REPLICA_ACK_TIMEOUT_MS: "250",
        }).redis,
      ).toEqual({
        sentinelUrls: ["redis://s:26379"],
        sentinelMaster: "mymaster",
        replicaAcks: { replicas: 2, timeoutMs: 250 },
      });
    });

    it("refuses a replica count or timeout that is not a whole number in range, or one without a Redis", () => {
      for (const value of ["0", "-1", "1.5", "two", "17"]) {
        expect(problemsOf({ ...MINIMAL, REDIS_URL: "redis://r", REDIS_REPLICA_ACKS: value })).toEqual([
          `REDIS_REPLICA_ACKS must be a whole number from 1 to 16 (replicas), got "${value}"`,
        ]);
      }
      expect(
        problemsOf({
          ...MINIMAL,
          REDIS_URL: "redis://r",
          REDIS_REPLICA_ACKS: "1",
          REDIS_REPLICA_ACK_TIMEOUT_MS: "0",
        }),
      ).toEqual([
        'REDIS_REPLICA_ACK_TIMEOUT_MS must be a whole number from 1 to 60000 (milliseconds), got "0"',
      ]);
      expect(problemsOf({ ...MINIMAL, REDIS_URL: "redis://r", REDIS_REPLICA_ACK_TIMEOUT_MS: "500" })).toEqual(
        [
          "REDIS_REPLICA_ACK_TIMEOUT_MS is set but REDIS_REPLICA_ACKS is not: set REDIS_REPLICA_ACKS to the replicas every once-round write must reach, or unset the timeout",
        ],
      );
      expect(problemsOf({ ...MINIMAL, REDIS_REPLICA_ACKS: "1" })).toEqual([
        "REDIS_REPLICA_ACKS is set but no Redis is: set one of REDIS_URL, REDIS_CLUSTER_URLS, REDIS_SENTINEL_URLS",
      ]);
    });

    it("refuses two topologies at once, half a Sentinel setting, and a CA without TLS, saying what to set", () => {
      expect(
        problemsOf({ ...MINIMAL, REDIS_URL: "redis://r", REDIS_CLUSTER_URLS: "redis://a:7000" }),
      ).toEqual([
        "REDIS_URL and REDIS_CLUSTER_URLS are both set: set exactly one of REDIS_URL, REDIS_CLUSTER_URLS, REDIS_SENTINEL_URLS, for one Redis, a Redis Cluster or a Sentinel-watched primary",
      ]);
      expect(problemsOf({ ...MINIMAL, REDIS_SENTINEL_URLS: "redis://s:26379" })[0]).toMatch(
        /^REDIS_SENTINEL_URLS and REDIS_SENTINEL_MASTER go together/,
      );
      expect(problemsOf({ ...MINIMAL, REDIS_SENTINEL_MASTER: "mymaster" })[0]).toMatch(
        /^REDIS_SENTINEL_URLS and REDIS_SENTINEL_MASTER go together/,
      );
      expect(problemsOf({ ...MINIMAL, REDIS_URL: "redis://r", REDIS_TLS_CA_FILE: "/ca.pem" })[0]).toMatch(
        /^REDIS_TLS_CA_FILE is set but the Redis URLs are not all rediss:\/\//,
      );
      expect(problemsOf({ ...MINIMAL, REDIS_TLS_CA_FILE: "/ca.pem" })[0]).toMatch(
        /^REDIS_TLS_CA_FILE is set but no Redis is/,
      );
      expect(problemsOf({ ...MINIMAL, REDIS_CLUSTER_URLS: "redis://a:7000,http://b" })[0]).toMatch(
        /^REDIS_CLUSTER_URLS must start with redis:\/\//,
      );
    });
  });
});
