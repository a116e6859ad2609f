import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

export const auth = oauthClientProvider({
  grant: "client_credentials",
  clientId: "reports-service",
  clientSecret: process.env.MCP_CLIENT_SECRET,
  clientIssuer: "https://auth.example.com",
  dpop: true,
});
