import { Client } from "@roundtrip/sdk";
import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

const auth = oauthClientProvider({
  grant: "client_credentials",
  clientId: "reports-service",
  clientSecret: process.env.MCP_CLIENT_SECRET,
  clientIssuer: "https://auth.example.com",
});
const client = new Client("https://mcp.example.com/mcp", { http: { auth } });
const result = await client.callTool("monthly_report", { month: "2026-11" });
console.log(result.content);
