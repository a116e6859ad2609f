import type { KMSClientConfig } from "@aws-sdk/client-kms";
import type { McpServer } from "@roundtrip/sdk";
import type { TokenVerifier } from "@roundtrip/sdk/resource-server";
import { protectedResourceMetadataFastify } from "@roundtrip/sdk/resource-server/fastify";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { DestinationStream } from "pino";
import type { ApprovalStore } from "./approvals/approval-store.js";
import { SealedApprovalStore } from "./approvals/sealed-approval-store.js";
import { createAuthentication } from "./auth/authentication.js";
import { IssuerHealth } from "./auth/issuer-health.js";
import { createTokenVerifier } from "./auth/token-verifier.js";
import type { ServerConfig } from "./config/server-config.js";
import { deployerRolloutFor } from "./deployer/deployer-config.js";
import { endConnectionsAfterDraining } from "./http/connection-draining.js";
import { registerCors } from "./http/cors.js";
import { allowHosts } from "./http/host-allow-list.js";
import { nameInstance } from "./http/instance-name.js";
import { echoRequestId, requestIdOf } from "./http/request-id.js";
import { Keyring } from "./keyring/keyring.js";
import { createLogger } from "./logging/create-logger.js";
import { nameRequest, scopedServerFactory } from "./logging/request-scope.js";
import { createMcpServer } from "./mcp/create-mcp-server.js";
import { APPROVALS_PATH, registerApprovalPage } from "./routes/approval-page.js";
import { registerHealthRoutes } from "./routes/health.js";
import { registerMcpRoute } from "./routes/mcp-route.js";
import { openSharedState, type SharedState } from "./state/shared-state.js";
import { openTaskRuntime } from "./state/task-runtime.js";

export interface BuildOptions {
  /** Receives the JSON log lines instead of stdout. */
  logStream?: DestinationStream;
  /** Merged over the KMS client settings (retries, timeouts, credentials). */
  kmsClientConfig?: KMSClientConfig;
  /** Verifies access tokens in place of the JWT or introspection verifier the configuration selects. */
  verifier?: TokenVerifier;
  /**
   * Approvals and once-rounds; default: in Redis when the configuration names one (REDIS_URL),
   * otherwise in this process. The server closes what it opened itself, never what it was given.
   */
  sharedState?: SharedState;
}

export interface RoundtripServer {
  readonly app: FastifyInstance;
  /** Register more tools, prompts and resources here before `listen`. */
  readonly mcp: McpServer;
  readonly keyring: Keyring;
  readonly config: ServerConfig;
  /** Pending and granted deploy approvals. */
  readonly approvals: ApprovalStore;
  /** Where approvals and once-rounds live: this process, or the fleet's Redis. */
  readonly sharedState: SharedState;
  /** Resolves once the authorization server has been checked at startup, reachable or not. */
  readonly issuerChecked: Promise<void>;
  /** Listens on the configured host and port; resolves to the bound address, e.g. `http://127.0.0.1:3000`. */
  listen(): Promise<string>;
  /** Fails readiness, stops accepting connections, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/**
 * The reference server: the MCP endpoint behind OAuth, with its RFC 9728 metadata, health routes and
 * the deploy approval page. It returns at once; the request-state keys load in the background and
 * `/readyz` turns 200 when they are in place.
 */
export async function buildServer(
  config: ServerConfig,
  options: BuildOptions = {},
): Promise<RoundtripServer> {
  const logger: FastifyBaseLogger = createLogger(config, options.logStream);
  const app = Fastify({
    loggerInstance: logger,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // By address only: X-Forwarded-For from anyone else is ignored.
    trustProxy: config.http.trustProxy.length > 0 ? config.http.trustProxy : false,
    bodyLimit: config.http.maxBodyBytes,
    serverFactory: scopedServerFactory,
  });
  let closing = false;
  const keyring = new Keyring({
    source: config.keys,
    ttlSeconds: config.requestStateTtlSeconds,
    logger: app.log.child({ component: "keyring" }),
    ...(options.kmsClientConfig ? { kmsClientConfig: options.kmsClientConfig } : {}),
  });
  const sharedState =
    options.sharedState ??
    (await openSharedState(config.redis, app.log.child({ component: "shared-state" }), keyring.codec));
  // Before anything is served: a store that can forget a claim lets a once-round run twice.
  await sharedState.requireGuarantee().catch(async (error: unknown) => {
    if (options.sharedState === undefined) await sharedState.close();
    throw error;
  });
  const approvals = new SealedApprovalStore({
    ledger: sharedState.approvals,
    codec: keyring.codec,
    logger: app.log.child({ component: "approvals" }),
  });
  if (sharedState.kind === "redis") {
    app.log.info(
      sharedState.description,
      "approvals, once-rounds, notifications, 2025-era sessions and DPoP proof ids are shared through Redis",
    );
  } else {
    app.log.warn(
      sharedState.description,
      "approvals, once-rounds, notifications, 2025-era sessions and DPoP proof ids are kept in this process: right for one instance; set REDIS_URL for a fleet",
    );
  }
  const taskRuntime = await openTaskRuntime(
    options.sharedState === undefined ? config.redis : undefined,
    sharedState,
    keyring.codec,
    app.log.child({ component: "tasks" }),
    config.taskLockSeconds,
  );
  app.log.info(taskRuntime.description, "tasks (deploy as a task) are kept and run as described");
  const verifier = options.verifier ?? createTokenVerifier(config.auth);
  const mcp = createMcpServer({
    name: config.serverName,
    version: config.serverVersion,
    security: keyring.security,
    logger: app.log.child({ component: "mcp" }),
    approvalUrl: (release) => new URL(`${APPROVALS_PATH}/${release}`, config.publicUrl).href,
    approvals,
    ...(config.deployer ? { rollout: deployerRolloutFor(config.deployer, config.auth) } : {}),
    onceStore: sharedState.onceStore,
    onceLeaseSeconds: config.onceLeaseSeconds,
    tasks: taskRuntime.tasks,
    deployRolloutMs: config.deployRolloutMs,
    ...(sharedState.bus ? { bus: sharedState.bus } : {}),
    ...(sharedState.sessions ? { sessions: sharedState.sessions } : {}),
  });
  // A verifier passed in is not the issuer's, so there is nothing of the issuer's to watch.
  const issuerHealth = options.verifier
    ? undefined
    : new IssuerHealth(config.auth, app.log.child({ component: "auth" }));
  const issuerChecked = issuerHealth?.start() ?? Promise.resolve();
  const authentication = createAuthentication(config, {
    verifier,
    ...(issuerHealth ? { issuerHealth } : {}),
    ...(sharedState.dpopProofs ? { dpopReplayStore: sharedState.dpopProofs } : {}),
  });

  echoRequestId(app);
  nameInstance(app, config.instanceName);
  app.addHook("onRequest", async (request) => nameRequest(request.id));
  allowHosts(app, config.http.allowedHosts);
  endConnectionsAfterDraining(app);
  await registerCors(app, config.http.corsOrigins);
  registerHealthRoutes(app, {
    keyring,
    sharedState,
    closing: () => closing,
    ...(issuerHealth ? { issuerHealth } : {}),
  });
  await registerApprovalPage(app, {
    approvals,
    keyring,
    publicUrl: config.publicUrl,
    rateLimit: config.http.rateLimit,
    issuer: config.auth.issuer,
    clientId: config.auth.approvalClientId,
    resource: config.publicUrl,
    scopes: config.auth.requiredScopes,
    allowInsecureHttp: config.auth.allowInsecureHttp,
    verifier,
  });
  await app.register(protectedResourceMetadataFastify, { metadata: authentication.metadata });
  await registerMcpRoute(app, { config, mcp, keyring, authentication });
  // Once the tools exist: a queued task calls them by name.
  taskRuntime.work(mcp);

  return {
    app,
    mcp,
    keyring,
    config,
    approvals,
    sharedState,
    issuerChecked,
    async listen() {
      return app.listen({ host: config.http.host, port: config.http.port });
    },
    async close() {
      closing = true;
      // Open subscription streams never end on their own; in-flight calls are left to finish.
      mcp.close();
      issuerHealth?.close();
      await app.close();
      await taskRuntime.close();
      if (options.sharedState === undefined) await sharedState.close();
    },
  };
}
