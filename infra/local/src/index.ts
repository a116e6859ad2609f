export { DEFAULT_USERS, type LocalUser } from "./accounts.js";
export {
  type AssertionClient,
  DEFAULT_CLIENTS,
  DEFAULT_ID_JAG_CLIENTS,
  DEFAULT_REDIRECT_URI,
  DEVELOPMENT_CLIENT_KEY,
  type ExchangeClient,
  type InteractiveClient,
  type IntrospectorClient,
  type KeyClient,
  type LocalClient,
  type MachineClient,
} from "./clients.js";
export { DevelopmentBrowser, type VisitedPage } from "./development-browser.js";
export type { Downstream, WorkloadIssuer } from "./enterprise-grants.js";
export { firstPostForm, type HtmlForm } from "./html-form.js";
export { generateSigningKey, publicJwk, type SigningKey } from "./keys.js";
export {
  type AuthorizationCodeOptions,
  DEFAULT_SCOPES,
  type LocalAuthServer,
  type LocalAuthServerOptions,
  startLocalAuthServer,
} from "./server.js";
export { basicAuthorization, requestToken, TokenRequestError, type TokenResponse } from "./token-endpoint.js";
