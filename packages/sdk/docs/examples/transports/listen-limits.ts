import { McpServer } from "@roundtrip/sdk";

export const mcp = new McpServer(
  { name: "infra", version: "1.0.0" },
  { subscriptions: { maxPerPrincipal: 4, idleTimeoutMs: 5 * 60_000, maxLifetimeMs: 30 * 60_000 } },
);
