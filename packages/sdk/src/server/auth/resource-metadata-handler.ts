import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ProtectedResourceMetadata,
  protectedResourceMetadataPaths,
} from "../../protocol/auth/resource-metadata.js";

export interface ResourceMetadataHandlerOptions {
  /** Where to serve it. Default: the path-inserted well-known path of `metadata.resource`, and the root one. */
  paths?: readonly string[];
  /** Cache-Control max-age. Default 3600 s. */
  maxAgeSec?: number;
}

/** Answers a request if it is for the metadata; returns false (touching nothing) otherwise. */
export type ResourceMetadataHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Serves the RFC 9728 document for plain `node:http` (or any framework exposing Node's req/res). It is
 * public and readable cross-origin, since browser-based MCP clients must discover it too.
 */
export function protectedResourceMetadataHandler(
  metadata: ProtectedResourceMetadata,
  options: ResourceMetadataHandlerOptions = {},
): ResourceMetadataHandler {
  const paths = new Set(options.paths ?? protectedResourceMetadataPaths(metadata.resource));
  const body = JSON.stringify(metadata);
  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, OPTIONS",
  };
  return (req, res) => {
    const path = new URL(req.url ?? "/", "http://request.invalid").pathname;
    if (!paths.has(path)) return false;
    switch (req.method) {
      case "GET":
      case "HEAD":
        res.writeHead(200, {
          ...cors,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "cache-control": `public, max-age=${options.maxAgeSec ?? 3600}`,
        });
        res.end(req.method === "GET" ? body : undefined);
        return true;
      case "OPTIONS":
        res.writeHead(204, { ...cors, "access-control-max-age": "86400" }).end();
        return true;
      default:
        res.writeHead(405, { ...cors, allow: "GET, HEAD, OPTIONS" }).end();
        return true;
    }
  };
}
