import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ServerSource } from "./server.js";
import {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandlerOptions,
} from "./transport/http-server.js";
import { httpErrorBody } from "./transport/json-response.js";
import { bodyTooLarge } from "./transport/request-body.js";

export interface McpFastifyOptions extends HttpHandlerOptions {
  /** A low-level Server or an McpServer. */
  server: ServerSource;
  /** Where the MCP endpoint is mounted. Default `/mcp`. */
  path?: string;
}

/**
 * Mounts an MCP server on a Fastify app. The body is taken raw so that malformed JSON, batches and
 * oversized bodies get the protocol's JSON-RPC errors instead of Fastify's own.
 */
export const mcpFastify: FastifyPluginAsync<McpFastifyOptions> = async (app: FastifyInstance, options) => {
  const path = options.path ?? "/mcp";
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const handle = createNodeHandler(options.server, options);

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler(
      (error: { code?: string; statusCode?: number; message: string }, request, reply) => {
        if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
          const refusal = bodyTooLarge(limit);
          void reply.status(refusal.status).send(httpErrorBody(refusal));
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
      handler: async (request, reply) => {
        // The transport writes on the raw response; headers that hooks set through Fastify (CORS,
        // rate-limit counters, request ids) are carried over first. The transport's own still win.
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        reply.hijack();
        await handle(request.raw, reply.raw, request.method === "POST" ? request.body : undefined);
      },
    });
  });
};
