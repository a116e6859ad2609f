import { McpServer } from "@roundtrip/sdk";
import { DownstreamTokens } from "@roundtrip/sdk/resource-server";
import * as z from "zod";

const downstream = new DownstreamTokens({
  issuer: "https://auth.example.com",
  clientId: "reports-mcp-server",
  clientSecret: process.env.EXCHANGE_CLIENT_SECRET ?? "",
});

const mcp = new McpServer({ name: "reports", version: "1.0.0" });
mcp.tool(
  "monthly_report",
  { description: "Fetches the caller's monthly report", input: z.object({ month: z.string() }) },
  async ({ month }, ctx) => {
    // A token for the reports API, acting for the caller: never the caller's own token.
    const token = await downstream.tokenFor(ctx.auth, {
      audience: "https://reports-api.example.com",
      scope: "reports:read",
    });
    const response = await fetch(`https://reports-api.example.com/reports/${encodeURIComponent(month)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return response.text();
  },
);
