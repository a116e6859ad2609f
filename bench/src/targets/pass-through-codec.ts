import type { RequestStateCodec } from "@roundtrip/sealing";

/**
 * A codec that encrypts nothing: the claims envelope, base64url-encoded. It exists only so the bench
 * can split what sealing costs into the envelope and binding (this codec) and the AES-256-GCM cipher
 * (the difference to the real codec). It protects nothing; never give it to a server that serves anyone.
 */
export const passThroughCodec: RequestStateCodec = {
  seal: (payload) => `p.${Buffer.from(payload).toString("base64url")}`,
  unseal: (token) => Buffer.from(token.slice(2), "base64url"),
};
