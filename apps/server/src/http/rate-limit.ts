import type { IncomingMessage } from "node:http";
import fastifyRateLimit from "@fastify/rate-limit";
import type { AuthInfo } from "@roundtrip/sdk/server";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface RateLimitOptions {
  max: number;
  /** Requests per client address, whatever their token, counted before any token is verified. */
  addressMax: number;
  windowMs: number;
  /** The request's verified principal, if its token is good (the verdict is shared with the transport). */
  authenticate: (req: IncomingMessage) => Promise<AuthInfo>;
}

/**
 * Counts requests per verified principal (client, issuer, subject), so users behind one address do
 * not share a budget and one user cannot dodge it by switching addresses. Requests without a valid
 * token are counted per client address. The principal comes from a verified token only: keying on
 * unverified claims would let anyone spend another user's budget.
 */
async function keyOf(request: FastifyRequest, options: RateLimitOptions): Promise<string> {
  const auth = await options.authenticate(request.raw).catch(() => undefined);
  if (auth === undefined) return `address:${request.ip}`;
  return `principal:${JSON.stringify([auth.clientId, auth.issuer ?? null, auth.subject ?? null])}`;
}

/**
 * Adds the limits to every route of `scope`, answering 429 with Retry-After when a budget is spent.
 * The address limit comes first and needs no token: verifying one can cost a call to the
 * authorization server, so a flood of bogus tokens must be cut off before any of them is checked.
 */
export async function registerRateLimit(scope: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await scope.register(fastifyRateLimit, { global: false });
  addLimit(
    scope,
    { max: options.addressMax, windowMs: options.windowMs },
    (request) => `before-auth:${request.ip}`,
  );
  addLimit(scope, options, (request) => keyOf(request, options));
}

/**
 * The same limit per client address, for pages anyone may open without a token (the approval page
 * and its sign-in callback). Behind a proxy the address is only right with TRUST_PROXY naming it.
 */
export async function registerAddressRateLimit(
  scope: FastifyInstance,
  options: { max: number; windowMs: number },
): Promise<void> {
  await scope.register(fastifyRateLimit, { global: false });
  addLimit(scope, options, (request) => `address:${request.ip}`);
}

/** onRequest hooks run in the order added, and one that answers 429 stops those after it. */
function addLimit(
  scope: FastifyInstance,
  options: { max: number; windowMs: number },
  keyGenerator: (request: FastifyRequest) => string | Promise<string>,
): void {
  const check = scope.createRateLimit({ max: options.max, timeWindow: options.windowMs, keyGenerator });
  scope.addHook("onRequest", async (request, reply) => {
    const verdict = await check(request);
    if (verdict.isAllowed) return;
    reply
      .header("x-ratelimit-limit", verdict.max)
      .header("x-ratelimit-remaining", verdict.remaining)
      .header("x-ratelimit-reset", verdict.ttlInSeconds);
    if (!verdict.isExceeded) return;
    request.log.warn({ keyKind: verdict.key.split(":")[0] }, "rate limit exceeded");
    return reply
      .code(429)
      .header("retry-after", verdict.ttlInSeconds)
      .send({ error: `Too many requests: retry in ${verdict.ttlInSeconds} s` });
  });
}
