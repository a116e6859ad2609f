import type { KMSClient } from "@aws-sdk/client-kms";
import { type LocalAuthServer, startLocalAuthServer } from "@roundtrip/local-auth";
import { generateWrappedDataKey } from "@roundtrip/sealing/kms";
import { adminClient, clientConfigFor, createKey } from "@roundtrip/test-kms/kms-fixture";
import { freePort, type MotoServer, startMotoServer } from "@roundtrip/test-kms/moto-server";
import { ensureTool } from "@roundtrip/test-services";
import { ServerInstance } from "./instance.js";
import { type NginxProxy, startNginx } from "./proxy.js";

/** The sealing audience every instance shares; one instance configured otherwise must refuse the fleet. */
export const SERVER_NAME = "roundtrip-fleet";
/** The machine client of the development authorization server. */
const MACHINE_CLIENT = "mcp-machine";

export interface FleetOptions {
  size: number;
  /** REQUEST_STATE_TTL_SECONDS of every instance. */
  ttlSeconds: number;
  /** REDIS_URL of every instance: the fleet's shared approvals and once-ledger. */
  redisUrl?: string;
  /**
   * The Redis settings of every instance instead, in any topology (REDIS_CLUSTER_URLS, or
   * REDIS_SENTINEL_URLS with REDIS_SENTINEL_MASTER) and with REDIS_REPLICA_ACKS.
   */
  redis?: Record<string, string>;
  /** Any other settings every instance gets, e.g. a short ONCE_LEASE_SECONDS. */
  settings?: Record<string, string>;
  /** Each instance serves /metrics on a METRICS_PORT of its own, kept across restarts. */
  metrics?: boolean;
}

/**
 * Three server processes behind nginx, as deployed: one public URL (the proxy's, which tokens name as
 * their audience), one server name, one authorization server, keys wrapped by the same KMS key.
 */
export class Fleet {
  readonly instances: ServerInstance[] = [];
  readonly extras: ServerInstance[] = [];
  readonly ttlSeconds: number;
  #redis: Record<string, string>;
  readonly #settings: Record<string, string>;
  #moto: MotoServer | undefined;
  #admin: KMSClient | undefined;
  #auth: LocalAuthServer | undefined;
  #proxy: NginxProxy | undefined;
  #keyAlias = "";
  #proxyPort = 0;
  #token = "";
  /** Each instance's METRICS_PORT, when the fleet serves metrics. */
  readonly #metricsPorts = new Map<string, number>();

  private constructor(ttlSeconds: number, redis: Record<string, string>, settings: Record<string, string>) {
    this.ttlSeconds = ttlSeconds;
    this.#redis = redis;
    this.#settings = settings;
  }

  /** Starts everything, or stops what it started and rethrows. */
  static async start(
    options: FleetOptions,
    initialKeys: (fleet: Fleet) => Promise<string[]>,
  ): Promise<Fleet> {
    // Before anything starts, so a machine without nginx fails at once with how to install it.
    await ensureTool("nginx");
    const redis = options.redis ?? (options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl });
    const fleet = new Fleet(options.ttlSeconds, redis, options.settings ?? {});
    try {
      await fleet.#start(options.size, initialKeys, options.metrics ?? false);
      return fleet;
    } catch (error) {
      await fleet.close();
      throw error;
    }
  }

  async #start(
    size: number,
    initialKeys: (fleet: Fleet) => Promise<string[]>,
    metrics: boolean,
  ): Promise<void> {
    this.#moto = await startMotoServer();
    this.#admin = adminClient(this.#moto.url);
    this.#keyAlias = (await createKey(this.#admin)).alias;
    this.#proxyPort = await freePort();
    // One token drives every flow of a suite that runs for minutes (a rotation waits out a TTL and
    // nine cold starts): it must outlive the suite, not the development server's default 5 minutes.
    this.#auth = await startLocalAuthServer({ resource: this.publicUrl, accessTokenTtlSec: 3600 });
    this.#token = await this.#auth.clientCredentialsToken(MACHINE_CLIENT, "mcp:tools");
    const keys = await initialKeys(this);
    for (let index = 0; index < size; index += 1) {
      const name = `instance-${index + 1}`;
      if (metrics) this.#metricsPorts.set(name, await freePort());
      this.instances.push(new ServerInstance(name, await freePort(), this.instanceEnvironment(name, keys)));
    }
    // One at a time: three cold starts at once on two cores only make each of them slower.
    for (const instance of this.instances) await instance.start();
    this.#proxy = await startNginx({
      port: this.#proxyPort,
      upstreams: this.instances.map((instance) => instance.port),
    });
  }

  /** The proxy's MCP endpoint: what clients call, and the audience of their tokens. */
  get publicUrl(): string {
    return `http://127.0.0.1:${this.#proxyPort}/mcp`;
  }

  get proxy(): NginxProxy {
    if (!this.#proxy) throw new Error("the proxy is not running");
    return this.#proxy;
  }

  /** Where Prometheus scrapes each instance (`host:port`), when the fleet was started with `metrics`. */
  get metricsTargets(): string[] {
    return this.instances.flatMap((instance) => {
      const port = this.#metricsPorts.get(instance.name);
      return port === undefined ? [] : [`127.0.0.1:${port}`];
    });
  }

  /** A client-credentials access token for the fleet's URL; every flow uses it. */
  get token(): string {
    return this.#token;
  }

  /** An access token for a person (authorization code + PKCE), with the scopes `scope` names. */
  async userToken(user: string, scope: string): Promise<string> {
    if (!this.#auth) throw new Error("the authorization server is not running");
    return (await this.#auth.authorizationCodeToken(user, scope)).accessToken;
  }

  /** A new AES-256 data key wrapped under the fleet's KMS key, for its service name. */
  async mintKey(): Promise<string> {
    if (!this.#moto) throw new Error("the KMS emulator is not running");
    const { wrappedKey } = await generateWrappedDataKey({
      keyId: this.#keyAlias,
      service: SERVER_NAME,
      clientConfig: clientConfigFor(this.#moto.url),
    });
    return wrappedKey;
  }

  /** An instance's whole configuration: only its wrapped keys (newest first) vary across a rotation. */
  environment(
    wrappedKeys: readonly string[],
    overrides: Record<string, string> = {},
  ): Record<string, string> {
    if (!this.#moto || !this.#auth) throw new Error("the fleet's services are not running");
    return {
      PUBLIC_URL: this.publicUrl,
      SERVER_NAME,
      OAUTH_ISSUER: this.#auth.issuer,
      KMS_WRAPPED_KEYS: wrappedKeys.join(","),
      KMS_KEY_ID: this.#keyAlias,
      KMS_SERVICE_NAME: SERVER_NAME,
      KMS_ENDPOINT: this.#moto.url,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "roundtrip-test",
      AWS_SECRET_ACCESS_KEY: "roundtrip-test",
      REQUEST_STATE_TTL_SECONDS: String(this.ttlSeconds),
      // One machine principal drives every flow: a per-principal limit sized for a person would
      // turn the load itself away with 429.
      RATE_LIMIT_MAX: "1000000",
      // nginx, which reaches the instances from loopback: its X-Forwarded-For is believed, nobody else's.
      TRUST_PROXY: "127.0.0.1",
      LOG_LEVEL: "info",
      ...this.#redis,
      ...this.#settings,
      ...overrides,
    };
  }

  /** An instance's own configuration, by its name: the fleet's, with its METRICS_PORT when it has one. */
  instanceEnvironment(name: string, wrappedKeys: readonly string[]): Record<string, string> {
    const metricsPort = this.#metricsPorts.get(name);
    return this.environment(
      wrappedKeys,
      metricsPort === undefined ? {} : { METRICS_PORT: String(metricsPort) },
    );
  }

  /**
   * Points every instance at another Redis (`redis`: its settings, as FleetOptions.redis), one rolling
   * restart at a time, each instance drained and back only once ready: what an operator does to move
   * a fleet. `wrappedKeys` are the keys the instances run with.
   */
  async moveTo(redis: Record<string, string>, wrappedKeys: readonly string[]): Promise<void> {
    this.#redis = redis;
    for (const instance of this.instances) {
      await instance.restart(this.instanceEnvironment(instance.name, wrappedKeys));
    }
  }

  /** An instance outside the proxy's upstream, started on its own port. */
  async startExtra(name: string, env: Record<string, string>): Promise<ServerInstance> {
    const instance = new ServerInstance(name, await freePort(), env);
    this.extras.push(instance);
    await instance.start();
    return instance;
  }

  /** The instance listening on `port`, from the address nginx reports for an upstream. */
  instanceAt(address: string): ServerInstance | undefined {
    const port = Number(address.split(":").pop());
    return this.instances.find((instance) => instance.port === port);
  }

  /** Stops everything that was started, whatever state it is in. */
  async close(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (step: () => Promise<void> | void) => {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    };
    await attempt(() => this.#proxy?.stop());
    for (const instance of [...this.instances, ...this.extras]) await attempt(() => instance.stop());
    await attempt(() => this.#auth?.close());
    await attempt(() => this.#admin?.destroy());
    await attempt(() => this.#moto?.stop());
    if (errors.length > 0) throw new AggregateError(errors, "the fleet did not stop cleanly");
  }
}
