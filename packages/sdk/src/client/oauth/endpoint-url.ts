import { secureUrl } from "../../protocol/auth/secure-url.js";
import { OAuthError } from "./errors.js";

/**
 * Parses a URL the client will send credentials, codes or tokens to. OAuth endpoints must be HTTPS;
 * loopback hosts may use plain HTTP (local development), other hosts only with allowInsecureHttp.
 */
export function endpointUrl(value: unknown, what: string, allowInsecureHttp = false): URL {
  if (typeof value !== "string" && !(value instanceof URL)) {
    throw new OAuthError("authorization_server_metadata", `${what} is missing from the server's metadata`);
  }
  try {
    return secureUrl(value, what, allowInsecureHttp);
  } catch (error) {
    throw new OAuthError("insecure_url", (error as Error).message, { cause: error });
  }
}
