import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

export const auth = oauthClientProvider({
  grant: "client_credentials",
  clientId: "reports-service",
  clientPrivateKey: { key: process.env.MCP_CLIENT_KEY_PEM ?? "", alg: "ES256", kid: "reports-2026" },
  clientIssuer: "https://auth.example.com",
});
