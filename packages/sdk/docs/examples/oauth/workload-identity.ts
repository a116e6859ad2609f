import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

export const auth = oauthClientProvider({
  grant: "workload_identity",
  clientId: "nightly-reports",
  // The one authorization server this workload's token is presented to, whatever a server names.
  clientIssuer: "https://auth.example.com",
  // A Kubernetes projected service account token, rotated by the kubelet; read again for every grant.
  workloadIdentity: { token: { file: "/var/run/secrets/tokens/mcp-token" } },
});
