import type { ClientAuthProvider } from "@roundtrip/sdk";

/**
 * A bearer token from the environment (ROUNDTRIP_TOKEN), for CI jobs that mint their own: it is sent
 * as is, and a refusal is final since there is nothing to renew it with.
 */
export function staticTokenProvider(token: string): ClientAuthProvider {
  return {
    authorization: async () => `Bearer ${token}`,
    handleChallenge: async () => false,
  };
}
