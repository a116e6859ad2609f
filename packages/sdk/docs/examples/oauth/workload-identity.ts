import { oauthClientProvider } from "@roundtrip/sdk/oauth-client";

export const auth = oauthClientProvider({
  grant: "workload_identity",
  clientId: "nightly-reports",
  // A Kubernetes projected service account token, rotated by the kubelet; read again for every grant.
  workloadIdentity: { token: { file: "/var/run/secrets/tokens/mcp-token" } },
});
