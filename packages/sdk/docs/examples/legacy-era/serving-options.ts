import { InMemoryEventStore, McpServer } from "@roundtrip/sdk";

const mcp = new McpServer(
  { name: "infra", version: "1.0.0" },
  {
    legacy: {
      sessionIdleMs: 30 * 60_000, // a session with no activity for this long ends
      maxSessionsPerPrincipal: 100, // per token issuer + client + subject (or anonymous); 429 beyond
      maxRequestStreamsPerSession: 16, // requests open at once on one session, on each instance; 429 beyond
      eventStore: new InMemoryEventStore({ maxEventsPerStream: 200, maxStreams: 1000 }),
      bridge: { maxRounds: 10, timeoutMs: 600_000 },
    },
  },
);
mcp.tool("hello", {}, () => "hello");

// The 2026-07-28 era only: a legacy initialize is answered with -32022.
const modernOnly = new McpServer({ name: "modern", version: "1.0.0" }, { legacy: false });
console.log(mcp.name, modernOnly.name);
