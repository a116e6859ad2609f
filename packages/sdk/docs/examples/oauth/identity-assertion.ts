import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

/** The ID token the host got when the user signed in to the company's IdP (its own OIDC sign-in). */
declare function currentIdToken(): Promise<string>;

export const auth = oauthClientProvider({
  grant: "identity_assertion",
  // The client as the MCP server's authorization server knows it.
  clientId: "reports-app",
  clientSecret: process.env.MCP_CLIENT_SECRET,
  clientIssuer: "https://auth.example.com",
  identityAssertion: {
    idpIssuer: "https://login.example-corp.com",
    idpClientId: "reports-app-at-idp",
    idpClientSecret: process.env.IDP_CLIENT_SECRET,
    idToken: currentIdToken,
  },
});
