/**
 * What a transport learned from a validated access token. `clientId`, `issuer` and `subject` are the
 * principal that sealed request state is bound to.
 */
export interface AuthInfo {
  /** The raw bearer token; never logged. */
  token: string;
  clientId: string;
  issuer?: string;
  subject?: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt?: number;
  /** The audience (RFC 8707 resource) the token was issued for. */
  resource?: string;
  claims?: Record<string, unknown>;
}
