import type { FastifyPluginAsync } from "fastify";
import {
  type ProtectedResourceMetadata,
  protectedResourceMetadataPaths,
} from "../../protocol/auth/resource-metadata.js";
import {
  protectedResourceMetadataHandler,
  type ResourceMetadataHandlerOptions,
} from "./resource-metadata-handler.js";

export interface ResourceMetadataFastifyOptions extends ResourceMetadataHandlerOptions {
  metadata: ProtectedResourceMetadata;
}

const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Serves the RFC 9728 document on a Fastify app at the path-inserted and root well-known paths. Register
 * it without a prefix: the well-known paths are absolute by definition.
 */
export const protectedResourceMetadataFastify: FastifyPluginAsync<ResourceMetadataFastifyOptions> = async (
  app,
  options,
) => {
  const handle = protectedResourceMetadataHandler(options.metadata, options);
  for (const url of options.paths ?? protectedResourceMetadataPaths(options.metadata.resource)) {
    app.route({
      method: METHODS,
      url,
      // HEAD is listed above and answered by the same handler, without a body.
      exposeHeadRoute: false,
      handler: async (request, reply) => {
        reply.hijack();
        // Fastify may route spellings the handler does not list (a trailing slash, say): never leave them hanging.
        if (!handle(request.raw, reply.raw)) reply.raw.writeHead(404).end();
      },
    });
  }
};
