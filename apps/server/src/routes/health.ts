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
 * state store that cannot take writes (away, frozen, out of memory, read-only, pausing writes), or that
 * now says it can forget them (its append-only file turned off, an evicting policy, demoted to a
 * replica), leaves it at 200 with `status: "degraded"` and the reason: only what needs the store refuses then, and
 * taking every instance out of a load balancer for it would stop the tools that still work. The store
 * is asked within its readiness deadline, so the answer comes well before a probe gives up.
 */
export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  const noteStore = storeChangeLog(app, options.sharedState.kind);
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
        const store = await options.sharedState.readiness();
        noteStore(store.ready ? undefined : store);
        if (store.ready) return reply.send({ status: "ready", sharedState: kind });
        if (store.forgets) {
          return reply.send({
            status: "degraded",
            sharedState: kind,
            reason: `${store.reason}; until it is set, a deploy or create_service replayed after a Redis restart, eviction or failover can run twice`,
          });
        }
        return reply.send({
          status: "degraded",
          sharedState: kind,
          reason: `the shared state store cannot take writes (${store.reason}): deploy, create_service, 2025-era sessions and DPoP proof checks refuse until it can`,
        });
      }
      case "loading":
        return reply.code(503).send({ status: "loading request-state keys" });
      case "failed":
        return reply.code(503).send({ status: "request-state keys failed to load; see the server log" });
    }
  });
}

/**
 * Logs when the store's answer to /readyz changes, not on every probe: a probe every few seconds
 * would bury the one line that says what went wrong.
 */
function storeChangeLog(
  app: FastifyInstance,
  kind: string,
): (store: { reason: string; forgets?: boolean } | undefined) => void {
  let last: string | undefined;
  return (store) => {
    const reason = store?.reason;
    if (reason === last) return;
    last = reason;
    if (reason === undefined) {
      app.log.info({ sharedState: kind }, "the shared state store takes writes again: /readyz says ready");
    } else if (store?.forgets) {
      app.log.warn(
        { sharedState: kind, reason },
        "the shared state store says it can forget acknowledged writes, so a replayed once-round could run twice: /readyz says degraded until its settings are restored",
      );
    } else {
      app.log.warn(
        { sharedState: kind, reason },
        "the shared state store cannot take writes: deploy, create_service, 2025-era sessions and DPoP proof checks refuse, and /readyz says degraded, until it can",
      );
    }
  };
}
