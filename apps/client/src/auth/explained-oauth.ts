import type { ClientAuthProvider } from "@roundtrip/sdk/client";
import { type OAuthClientProvider, OAuthError } from "@roundtrip/sdk/oauth-client";
import { parseBearerChallenge } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";
import type { Terminal } from "../terminal.js";
import type { LoginProfile } from "./login-profiles.js";

export interface ExplainedOAuthOptions {
  server: string;
  profile: LoginProfile;
  terminal: Terminal;
}

/**
 * The SDK's OAuth client as the person sees it: a sign-in the server's refusal for lack of scope
 * causes (a step-up) says so before it starts, and the SDK's refusal to present the client to another
 * authorization server says what to do about it here.
 */
export function explainedOAuth(
  oauth: OAuthClientProvider,
  options: ExplainedOAuthOptions,
): ClientAuthProvider {
  const { server, profile, terminal } = options;
  return {
    authorization: (resource, signal) => oauth.authorization(resource, signal),
    async handleChallenge(challenge) {
      const refusal = parseBearerChallenge(challenge.wwwAuthenticate);
      if (challenge.status === 403 && refusal?.error === "insufficient_scope") {
        const needs = refusal.scope ? ` (it needs ${refusal.scope.join(" ")})` : "";
        terminal.notice(
          `${server} refused the request for lack of scope${needs}: signing in again to ask for it.`,
        );
      }
      try {
        return await oauth.handleChallenge(challenge);
      } catch (error) {
        if (!(error instanceof OAuthError && error.code === "client_issuer")) throw error;
        throw new CliError(
          ExitCode.auth,
          `${server} no longer names the authorization server you signed in with: ${error.message}. If the new one is right, sign in to it: \`${loginAgain(server, profile)}\``,
          { cause: error },
        );
      }
    },
  };
}

/** The command that signs in to `server` again with the same client, the secret left for the person to type. */
export function loginAgain(server: string, profile: LoginProfile): string {
  const client = profile.clientId === undefined ? "" : ` --client-id ${profile.clientId}`;
  const secret = profile.clientSecret === undefined ? "" : " --client-secret <secret>";
  return `roundtrip login --server ${server}${client}${secret}`;
}
