import { McpServer } from "@roundtrip/sdk";
import { RequestStateSecurity } from "@roundtrip/sealing";

export const mcp = new McpServer(
  { name: "infra", version: "1.0.0" },
  { requestStateSecurity: new RequestStateSecurity({ keys: [process.env.STATE_KEY ?? ""] }) },
);
