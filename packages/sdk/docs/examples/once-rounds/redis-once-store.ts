import { McpServer } from "@roundtrip/sdk";
import { RedisOnceStore } from "@roundtrip/sdk/redis";
import { RequestStateSecurity } from "@roundtrip/sealing";
import { createClient } from "redis";
import * as z from "zod";

// No offline queue: while Redis is away, commands fail at once instead of waiting.
const redis = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
redis.on("error", (error) => console.error("redis:", error.message));
await redis.connect();

const mcp = new McpServer(
  { name: "infra", version: "1.0.0" },
  {
    requestStateSecurity: new RequestStateSecurity({ keys: [process.env.STATE_KEY ?? ""] }),
    once: { store: new RedisOnceStore({ client: redis }), outcomeTtl: 300, flowLifetime: 3600 },
  },
);

mcp.tool("deploy", { input: z.object({ service: z.string() }), once: true }, ({ service }, ctx) => {
  // ... ask for confirmation on the first round, deploy on the confirmed one
  return `deployed ${service} (${ctx.requestState ?? "first round"})`;
});

// A readiness probe (/readyz): false while the once-store cannot take claims.
export const ready = (): Promise<boolean> => mcp.onceStore.ready();
