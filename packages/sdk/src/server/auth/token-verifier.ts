import type { AuthInfo } from "../auth-info.js";

/**
 * Turns a bearer token into the principal it stands for. Throws InvalidTokenError for a token that must
 * be refused (401); any other error means the check itself could not run (the transport answers 500).
 */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo>;
}
