import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { type ServerSource, serverOf } from "./server.js";
import { HttpError } from "./transport/http-errors.js";
import { rememberPeer } from "./transport/http-peer.js";
import {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BODY_DEPTH,
  type HttpHandlerOptions,
  headCheck,
} from "./transport/http-server.js";
import { httpErrorBody } from "./transport/json-response.js";
import { bodyTooLarge, checkBodyDepth } from "./transport/request-body.js";

export interface McpFastifyOptions extends HttpHandlerOptions {
  /** A low-level Server or an McpServer. */
  server: ServerSource;
  /** Where the MCP endpoint is mounted. Default `/mcp`. */
  path?: string;
}

type Authenticate = NonNullable<HttpHandlerOptions["authenticate"]>;

/** Where a request keeps the verdict onRequest reached on it: on the request, not in a WeakMap (see http-peer.ts). */
const VERDICT: unique symbol = Symbol("roundtrip.authentication-verdict");

interface JudgedRequest {
  [VERDICT]?: ReturnType<Authenticate>;
}

/**
 * The hook, run once per request on its head: the verdict reached in onRequest is the one the
 * transport gets. A run with a target (a 2025-era request, once its body named the tool) still runs.
 */
function verdictOnce(authenticate: Authenticate): Authenticate {
  return (req, target) => {
    if (target !== undefined) return authenticate(req, target);
    const judged = req as Parameters<Authenticate>[0] & JudgedRequest;
    let verdict = judged[VERDICT];
    if (verdict === undefined) {
      verdict = authenticate(req);
      judged[VERDICT] = verdict;
    }
    return verdict;
  };
}

/**
 * Mounts an MCP server on a Fastify app. The head is checked in onRequest (method, Origin and Host,
 * the token), so a refused request is answered before Fastify reads its body. The body is taken raw,
 * bounded in size while it is read and in depth before anything parses it, so that malformed JSON,
 * batches and oversized bodies get the protocol's JSON-RPC errors instead of Fastify's own, and the
 * app's later hooks never meet a body the transport would refuse.
 */
export const mcpFastify: FastifyPluginAsync<McpFastifyOptions> = async (app: FastifyInstance, options) => {
  const path = options.path ?? "/mcp";
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxDepth = options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH;
  const handlerOptions: HttpHandlerOptions = options.authenticate
    ? { ...options, authenticate: verdictOnce(options.authenticate) }
    : options;
  const handle = createNodeHandler(options.server, handlerOptions);
  const admit = headCheck(handlerOptions, serverOf(options.server).legacy !== undefined);

  // The transport writes on the raw response; headers that hooks set through Fastify (CORS, rate-limit
  // counters, request ids) are carried over first. The transport's own still win.
  const serve = async (request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<void> => {
    // request.ip is the address Fastify's trustProxy believes, read only if telemetry asks.
    rememberPeer(request.raw, request);
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.hijack();
    await handle(request.raw, reply.raw, body);
  };

  await app.register(async (scope) => {
    scope.addHook("onRequest", async (request, reply) => {
      const refused = await admit(request.raw).then(
        () => false,
        () => true,
      );
      // The transport meets the same refusal (the verdict is remembered) and answers it as it answers
      // every other, before it reads the body.
      if (refused) await serve(request, reply, undefined);
    });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (_req, body, done) => {
      try {
        checkBodyDepth(body, maxDepth);
        done(null, body);
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    scope.setErrorHandler(
      (error: { code?: string; statusCode?: number; message: string }, request, reply) => {
        const refusal = error.code === "FST_ERR_CTP_BODY_TOO_LARGE" ? bodyTooLarge(limit) : error;
        if (refusal instanceof HttpError) {
          void reply.status(refusal.status).headers(refusal.headers).send(httpErrorBody(refusal));
          return;
        }
        const status = error.statusCode ?? 500;
        // A hook's own refusal (a 429 from a rate limiter, a 401 from an auth hook) keeps its status and text.
        if (status < 500) {
          void reply.status(status).send({ error: error.message });
          return;
        }
        request.log.error({ err: { message: error.message, code: error.code } }, "MCP route failed");
        void reply.status(status).send({ error: "Internal error" });
      },
    );
    scope.route({
      method: ["POST", "GET", "DELETE", "PUT", "PATCH"],
      url: path,
      handler: async (request, reply) =>
        serve(request, reply, request.method === "POST" ? request.body : undefined),
    });
  });
};
