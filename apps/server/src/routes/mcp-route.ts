import type { McpServer } from "@roundtrip/sdk";
import { mcpFastify } from "@roundtrip/sdk/fastify";
import type { FastifyInstance } from "fastify";
import type { Authentication } from "../auth/authentication.js";
import type { ServerConfig } from "../config/server-config.js";
import { registerRateLimit } from "../http/rate-limit.js";
import { gateOnKeyring } from "../http/readiness-gate.js";
import type { Keyring } from "../keyring/keyring.js";
import { describeMcpRequest } from "../logging/request-scope.js";

export interface McpRouteOptions {
  config: ServerConfig;
  mcp: McpServer;
  keyring: Keyring;
  authentication: Authentication;
}

/**
 * The MCP path (POST, and GET and DELETE for 2025-era sessions), in its own scope so that its hooks
 * touch nothing else. In order: closed until the keys are loaded, counted against the caller's address
 * and then principal rate limits; the transport checks Origin, Host and the token (401/403 with
 * challenges) before the body is read, and its size and depth as it is read; the tools the body calls
 * are noted for their scopes, and the transport serves the request.
 */
export async function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { config, authentication } = options;
  await app.register(async (scope) => {
    gateOnKeyring(scope, options.keyring);
    scope.addHook("preHandler", async (request) => describeMcpRequest(request.headers, request.body));
    await registerRateLimit(scope, {
      max: config.http.rateLimit.max,
      addressMax: config.http.rateLimit.addressMax,
      windowMs: config.http.rateLimit.windowMs,
      authenticate: authentication.authenticate,
    });
    // After the body is parsed and before the transport authenticates: a tool named only there counts.
    scope.addHook("preHandler", async (request) => authentication.readBody(request.raw, request.body));
    await scope.register(mcpFastify, {
      server: options.mcp,
      path: config.mcpPath,
      authenticate: authentication.authenticate,
      ...(config.http.corsOrigins.length > 0 ? { allowedOrigins: config.http.corsOrigins } : {}),
      ...(config.http.allowedHosts === undefined ? {} : { allowedHosts: config.http.allowedHosts }),
      maxBodyBytes: config.http.maxBodyBytes,
    });
  });
}
