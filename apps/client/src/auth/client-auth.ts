import type { ClientAuthProvider } from "@roundtrip/sdk/client";
import {
  type OAuthClientOptions,
  type OAuthClientProvider,
  oauthClientProvider,
  type TokenStore,
} from "@roundtrip/sdk/oauth-client";
import { CliError, ExitCode } from "../exit-codes.js";
import type { Terminal } from "../terminal.js";
import { explainedOAuth, loginAgain } from "./explained-oauth.js";
import type { LoginProfile } from "./login-profiles.js";
import type { LoopbackLogin } from "./loopback-login.js";
import { staticTokenProvider } from "./static-token.js";

export interface ClientAuth {
  provider: ClientAuthProvider | undefined;
  /** Set for OAuth profiles. */
  oauth?: OAuthClientProvider;
  close(): Promise<void>;
}

export interface ClientAuthOptions {
  /** The MCP endpoint the credentials are for. */
  server: string;
  profile: LoginProfile | undefined;
  store: TokenStore;
  terminal: Terminal;
  browser: boolean;
  /** `roundtrip login` is running: a browser sign-in may wait for a person even without a terminal. */
  signingIn?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The credentials a command sends: ROUNDTRIP_TOKEN when set, otherwise the OAuth client `roundtrip
 * login` configured for the server (tokens from the file store, renewed by the SDK), otherwise none.
 */
export async function clientAuth(options: ClientAuthOptions): Promise<ClientAuth> {
  const env = options.env ?? process.env;
  if (env.ROUNDTRIP_TOKEN) {
    return {
      provider: staticTokenProvider(env.ROUNDTRIP_TOKEN, options.server, env),
      close: async () => {},
    };
  }
  const profile = options.profile;
  if (!profile) return { provider: undefined, close: async () => {} };
  if (profile.clientSecret !== undefined && profile.issuer === undefined) {
    throw new CliError(
      ExitCode.auth,
      `the login saved for ${options.server} does not record which authorization server its client secret belongs to, so the secret is not sent anywhere; sign in again: \`${loginAgain(options.server, profile)}\``,
    );
  }
  let loopback: LoopbackLogin | undefined;
  if (profile.grant === "authorization_code") {
    // Bound now because the SDK needs the redirect URI up front; it serves only during a sign-in.
    // Fastify and @fastify/oauth2 load only for browser sign-ins, keeping every other command quick to start.
    const { startLoopbackLogin } = await import("./loopback-login.js");
    loopback = await startLoopbackLogin({
      terminal: options.terminal,
      browser: options.browser,
      signingIn: options.signingIn === true,
      ...(profile.callbackPort === undefined ? {} : { port: profile.callbackPort }),
    });
  }
  const oauth = oauthClientProvider({
    grant: profile.grant,
    ...assertionGrant(profile, env, options.server),
    ...(profile.clientId === undefined ? {} : { clientId: profile.clientId }),
    ...(profile.clientSecret === undefined ? {} : { clientSecret: profile.clientSecret }),
    ...(profile.issuer === undefined ? {} : { clientIssuer: profile.issuer }),
    ...(profile.scope === undefined ? {} : { scope: profile.scope }),
    store: options.store,
    ...(loopback
      ? {
          redirect: {
            redirectUri: loopback.redirectUri,
            authorize: (url, signal) => loopback.authorize(url, signal),
          },
        }
      : {}),
  });
  return {
    provider: explainedOAuth(oauth, { server: options.server, profile, terminal: options.terminal }),
    oauth,
    close: async () => loopback?.close(),
  };
}

/**
 * The part of a hand-written profile the grants without a browser need: the client id and the issuer
 * of its authorization server, and the IdP and the user's ID token file for `identity_assertion`, the
 * token file for `workload_identity`. A profile missing them is refused here, naming the field to add.
 */
function assertionGrant(
  profile: LoginProfile,
  env: NodeJS.ProcessEnv,
  server: string,
): Pick<OAuthClientOptions, "identityAssertion" | "workloadIdentity"> {
  const missing = (field: string) =>
    new CliError(
      ExitCode.usage,
      `the login saved for ${server} uses the ${profile.grant} grant without "${field}"; add it to its entry in logins.json`,
    );
  if (profile.grant !== "workload_identity" && profile.grant !== "identity_assertion") return {};
  // The assertion goes to this authorization server only, never to one a server's metadata names.
  for (const field of ["clientId", "issuer"] as const) if (profile[field] === undefined) throw missing(field);
  if (profile.grant === "workload_identity") {
    if (profile.workloadTokenFile === undefined) throw missing("workloadTokenFile");
    return { workloadIdentity: { token: { file: profile.workloadTokenFile } } };
  }
  const idp = profile.identityAssertion;
  if (idp === undefined) throw missing("identityAssertion");
  const secretEnv = idp.idpClientSecretEnv;
  const secret = secretEnv === undefined ? undefined : env[secretEnv];
  if (secretEnv !== undefined && !secret) {
    throw new CliError(
      ExitCode.auth,
      `${secretEnv} is not set: it holds the client secret at ${idp.idpIssuer} for the login to ${server}`,
    );
  }
  return {
    identityAssertion: {
      idpIssuer: idp.idpIssuer,
      idpClientId: idp.idpClientId,
      ...(idp.idpTokenEndpoint === undefined ? {} : { idpTokenEndpoint: idp.idpTokenEndpoint }),
      ...(secret ? { idpClientSecret: secret } : {}),
      idToken: { file: idp.idTokenFile },
    },
  };
}
