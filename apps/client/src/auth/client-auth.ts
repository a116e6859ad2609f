import type { ClientAuthProvider } from "@roundtrip/sdk";
import { type OAuthClientProvider, oauthClientProvider } from "@roundtrip/sdk/oauth";
import type { Terminal } from "../terminal.js";
import type { LoginProfile } from "./login-profiles.js";
import type { LoopbackLogin } from "./loopback-login.js";
import { staticTokenProvider } from "./static-token.js";
import type { FileTokenStore } from "./token-store.js";

export interface ClientAuth {
  provider: ClientAuthProvider | undefined;
  /** Set for OAuth profiles. */
  oauth?: OAuthClientProvider;
  close(): Promise<void>;
}

export interface ClientAuthOptions {
  profile: LoginProfile | undefined;
  store: FileTokenStore;
  terminal: Terminal;
  browser: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The credentials a command sends: ROUNDTRIP_TOKEN when set, otherwise the OAuth client `roundtrip
 * login` configured for the server (tokens from the file store, renewed by the SDK), otherwise none.
 */
export async function clientAuth(options: ClientAuthOptions): Promise<ClientAuth> {
  const env = options.env ?? process.env;
  if (env.ROUNDTRIP_TOKEN)
    return { provider: staticTokenProvider(env.ROUNDTRIP_TOKEN), close: async () => {} };
  const profile = options.profile;
  if (!profile) return { provider: undefined, close: async () => {} };
  let loopback: LoopbackLogin | undefined;
  if (profile.grant === "authorization_code") {
    // Bound now because the SDK needs the redirect URI up front; it serves only during a sign-in.
    // Fastify and @fastify/oauth2 load only for browser sign-ins, keeping every other command quick to start.
    const { startLoopbackLogin } = await import("./loopback-login.js");
    loopback = await startLoopbackLogin({
      terminal: options.terminal,
      browser: options.browser,
      ...(profile.callbackPort === undefined ? {} : { port: profile.callbackPort }),
    });
  }
  const oauth = oauthClientProvider({
    grant: profile.grant,
    ...(profile.clientId === undefined ? {} : { clientId: profile.clientId }),
    ...(profile.clientSecret === undefined ? {} : { clientSecret: profile.clientSecret }),
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
  return { provider: oauth, oauth, close: async () => loopback?.close() };
}
