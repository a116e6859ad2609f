import {
  DEFAULT_CLIENTS,
  DEFAULT_REDIRECT_URI,
  type LocalAuthServer,
  startLocalAuthServer,
} from "@roundtrip/local-auth";
import { ServerInstance } from "@roundtrip/test-fleet/instance";
import { freePort, RedisServer } from "@roundtrip/test-services";
import { LeakWatch } from "@roundtrip/test-support/leak-watch";

/** The canonical URI the target answers for, as behind a TLS-terminating load balancer; tokens name it. */
export const PUBLIC_URL = "https://mcp.roundtrip.test/mcp";
const PUBLIC_CALLBACK = new URL("/callback", PUBLIC_URL).href;
/** Another resource of the same authorization server: tokens for it are JWTs when PUBLIC_URL's are opaque. */
const OTHER_RESOURCE = "https://other.roundtrip.test/mcp";
const INTROSPECTOR = DEFAULT_CLIENTS.find((client) => client.kind === "introspector");

export interface TargetOptions {
  /** A real redis-server for the instance's shared state (approvals, once-ledger, sessions). */
  redis?: boolean;
  /** Opaque access tokens, verified by introspection with the development server's resource-server client. */
  introspection?: boolean;
  /** More of the server's environment. */
  env?: Record<string, string>;
}

/**
 * The reference server as deployed, one real process, with its real authorization server and users
 * alice and bob signed in through it. The server logs at trace level, so every log line an attack
 * provokes can be searched for the secrets its watch remembers.
 */
export class Target {
  readonly instance: ServerInstance;
  readonly secrets = new LeakWatch();
  readonly #auth: LocalAuthServer;
  readonly #redis: RedisServer | undefined;
  #tokens = new Map<string, string>();

  private constructor(instance: ServerInstance, auth: LocalAuthServer, redis: RedisServer | undefined) {
    this.instance = instance;
    this.#auth = auth;
    this.#redis = redis;
  }

  /** The secret the introspecting instance authenticates to the authorization server with. */
  static readonly INTROSPECTION_SECRET = INTROSPECTOR?.kind === "introspector" ? INTROSPECTOR.secret : "";

  static async start(options: TargetOptions = {}): Promise<Target> {
    const redis = options.redis ? await RedisServer.start() : undefined;
    const auth = await startLocalAuthServer({
      ...(options.introspection
        ? { resource: OTHER_RESOURCE, opaqueResource: PUBLIC_URL }
        : { resource: PUBLIC_URL }),
      // The approval page signs people in with the interactive client, at PUBLIC_URL's /callback.
      clients: DEFAULT_CLIENTS.map((client) =>
        client.kind === "interactive"
          ? { ...client, redirectUris: [DEFAULT_REDIRECT_URI, PUBLIC_CALLBACK] }
          : client,
      ),
      accessTokenTtlSec: 3600,
    });
    const instance = new ServerInstance("target", await freePort(), {
      PUBLIC_URL,
      OAUTH_ISSUER: auth.issuer,
      LOG_LEVEL: "trace",
      ...(redis ? { REDIS_URL: redis.url } : {}),
      ...(options.introspection && INTROSPECTOR?.kind === "introspector"
        ? {
            OAUTH_INTROSPECTION_URL: auth.introspectionEndpoint,
            OAUTH_INTROSPECTION_CLIENT_ID: INTROSPECTOR.id,
            OAUTH_INTROSPECTION_CLIENT_SECRET: INTROSPECTOR.secret,
          }
        : {}),
      ...options.env,
    });
    const target = new Target(instance, auth, redis);
    try {
      await instance.start();
    } catch (error) {
      await target.close();
      throw error;
    }
    return target;
  }

  get redis(): RedisServer {
    if (!this.#redis) throw new Error("this target was started without Redis");
    return this.#redis;
  }

  get auth(): LocalAuthServer {
    return this.#auth;
  }

  /** A person's access token (authorization code + PKCE), remembered as a secret; one per user and scope. */
  async token(user: string, scope = "mcp:tools mcp:deploy"): Promise<string> {
    const key = `${user} ${scope}`;
    let token = this.#tokens.get(key);
    if (token === undefined) {
      token = (await this.#auth.authorizationCodeToken(user, scope, { resource: PUBLIC_URL })).accessToken;
      this.secrets.remember(`access token of ${user}`, token);
      this.#tokens.set(key, token);
    }
    return token;
  }

  /** Whether the process still runs and answers its liveness probe. */
  async alive(): Promise<boolean> {
    try {
      const response = await fetch(`${this.instance.origin}/healthz`);
      return response.status === 200;
    } catch {
      return false;
    }
  }

  /** Every line the server wrote, for the secret search. */
  log(): string {
    return this.instance.output();
  }

  async close(): Promise<void> {
    await this.instance.stop();
    await this.#auth.close();
    await this.#redis?.stop();
  }
}
