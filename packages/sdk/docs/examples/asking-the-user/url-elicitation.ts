import { ask, McpServer, resolver } from "@roundtrip/sdk";

const mcp = new McpServer({ name: "calendar", version: "1.0.0" });
const consent = resolver(
  () => ask.elicitUrl("Connect your calendar to continue", "https://calendar.example.com/connect"),
  { onDecline: "outcome" },
);

mcp.tool("sync", { resolve: { consent } }, (_args, { consent }) =>
  consent.action === "accept" ? "Syncing once the calendar is connected" : "Calendar not connected",
);
