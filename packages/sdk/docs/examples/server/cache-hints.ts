import { McpServer } from "@roundtrip/sdk";

const mcp = new McpServer({ name: "infra", version: "1.0.0" }, { cache: { ttlMs: 0 } });

// The same for everyone, for a day.
mcp.resource(
  "logo",
  { uri: "assets://logo.svg", cache: { ttlMs: 86_400_000, cacheScope: "public" } },
  () => "<svg/>",
);
// Each caller's own, for 30 seconds.
mcp.resource(
  "quota",
  { uri: "quota://{team}", cache: { ttlMs: 30_000, cacheScope: "private" } },
  ({ team }) => `${team}: 80% used`,
);
