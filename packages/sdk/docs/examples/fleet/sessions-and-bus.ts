import { RedisNotificationBus, RedisSessionRegistry } from "@roundtrip/sdk/redis";
import { McpServer } from "@roundtrip/sdk/server";
import { RequestStateSecurity } from "@roundtrip/sealing";
import { createClient } from "redis";

const client = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true });
client.on("error", (error) => console.error("redis:", error.message));
await client.connect();
// The keys every instance shares: they seal requestState, and every message on the bus.
const security = new RequestStateSecurity({ keys: [process.env.STATE_KEY ?? ""] });
export const fleetMember = new McpServer(
  { name: "fleet", version: "1.0.0" },
  {
    requestStateSecurity: security,
    // Opens its own subscriber with client.duplicate().
    bus: new RedisNotificationBus({ client, codec: security.codec }),
    legacy: { sessions: new RedisSessionRegistry({ client }) },
  },
);
