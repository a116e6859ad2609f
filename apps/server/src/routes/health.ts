import type { FastifyInstance } from "fastify";
import type { IssuerHealth } from "../auth/issuer-health.js";
import type { Keyring } from "../keyring/keyring.js";
import type { SharedState } from "../state/shared-state.js";

export interface HealthOptions {
  keyring: Keyring;
  sharedState: SharedState;
  /** Absent when tokens are verified by a verifier the server was given. */
  issuerHealth?: IssuerHealth;
  /** True once shutdown began: readiness drops first so load balancers stop sending traffic. */
  closing: () => boolean;
}

/**
 * `/healthz` answers while the process can serve HTTP at all (liveness: restart me if not).
 * `/readyz` answers 200 only when requests can be served: keys loaded and not shutting down. A shared
 * state store that is away leaves it at 200 with `status: "degraded"`: only the once-tools refuse then,
 * and taking every instance out of a load balancer for it would stop the tools that still work.
 */
export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  app.get("/healthz", { logLevel: "warn" }, async (_request, reply) =>
    reply.header("cache-control", "no-store").send({ status: "ok" }),
  );
  app.get("/readyz", { logLevel: "warn" }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    if (options.closing()) return reply.code(503).send({ status: "shutting down" });
    switch (options.keyring.status) {
      case "ready": {
        const issuer = options.issuerHealth?.status;
        if (issuer?.state === "checking") {
          return reply
            .code(503)
            .send({ status: "checking the authorization server", issuer: options.issuerHealth?.url });
        }
        if (issuer?.state === "unreachable") {
          return reply.code(503).send({
            status: "authorization server unreachable",
            issuer: issuer.url,
            reason: issuer.reason,
          });
        }
        const { kind } = options.sharedState;
        if (await options.sharedState.onceStore.ready())
          return reply.send({ status: "ready", sharedState: kind });
        return reply.send({
          status: "degraded",
          sharedState: kind,
          reason: "the shared state store is unreachable: deploy and create_service refuse until it is back",
        });
      }
      case "loading":
        return reply.code(503).send({ status: "loading request-state keys" });
      case "failed":
        return reply.code(503).send({ status: "request-state keys failed to load; see the server log" });
    }
  });
}
