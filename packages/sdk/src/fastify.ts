import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ServerSource } from "./server/server.js";
import { HttpError } from "./transport/http-errors.js";
import {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandlerOptions,
} from "./transport/http-server.js";

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
          reply.hijack();
          const tooLarge = new HttpError(
            413,
            `Request body exceeds ${limit} bytes; send a smaller request or raise maxBodyBytes`,
            {
              code: -32600,
            },
          );
          reply.raw.writeHead(413, { "content-type": "application/json" });
          reply.raw.end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: tooLarge.code, message: tooLarge.message } }),
          );
          return;
        }
        request.log.error({ err: { message: error.message, code: error.code } }, "MCP route failed");
        void reply.status(error.statusCode ?? 500).send({ error: "Internal error" });
      },
    );
    scope.route({
      method: ["POST", "GET", "DELETE", "PUT", "PATCH"],
      url: path,
      handler: async (request, reply) => {
        reply.hijack();
        await handle(request.raw, reply.raw, request.method === "POST" ? request.body : undefined);
      },
    });
  });
};
