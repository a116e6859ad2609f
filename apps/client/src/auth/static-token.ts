import type { ClientAuthProvider } from "@roundtrip/sdk/client";
import { isLoopbackHost, parseBearerChallenge } from "@roundtrip/sdk/protocol";
import { checkServerUrl } from "../config/settings.js";
import { CliError, ExitCode } from "../exit-codes.js";

/**
 * A bearer token from the environment (ROUNDTRIP_TOKEN), for CI jobs that mint their own. It is bound
 * to one server, ROUNDTRIP_TOKEN_SERVER, else ROUNDTRIP_SERVER: a command aimed anywhere else (with
 * --server or the config file) fails before anything is sent, so a token minted for one server never
 * reaches another, and it never travels over plain http except to loopback. It is sent as is, and a
 * refusal is final since there is nothing to renew it with.
 */
export function staticTokenProvider(
  token: string,
  server: string,
  env: NodeJS.ProcessEnv,
): ClientAuthProvider {
  const bound = boundServer(env);
  if (bound === undefined) {
    throw new CliError(
      ExitCode.usage,
      `ROUNDTRIP_TOKEN is set but not the server it is for; set ROUNDTRIP_TOKEN_SERVER=${server} (or ROUNDTRIP_SERVER) if the token is meant for it`,
    );
  }
  if (bound !== server) {
    throw new CliError(
      ExitCode.usage,
      `ROUNDTRIP_TOKEN is for ${bound}, so it is not sent to ${server}; unset it to use a login, or set ROUNDTRIP_TOKEN_SERVER=${server} if the token is meant for that server`,
    );
  }
  const url = new URL(server);
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new CliError(
      ExitCode.usage,
      `ROUNDTRIP_TOKEN is not sent over plain http to ${url.host}, where anyone on the way could read it; use the server's https URL`,
    );
  }
  return {
    authorization: async (resource) => (resource.href === server ? `Bearer ${token}` : undefined),
    async handleChallenge(challenge) {
      const refusal = parseBearerChallenge(challenge.wwwAuthenticate);
      const reason = refusal?.error
        ? `${refusal.error}${refusal.description ? `: ${refusal.description}` : ""}`
        : "no reason given";
      const needs = refusal?.scope ? `; it needs the scope ${refusal.scope.join(" ")}` : "";
      throw new CliError(
        ExitCode.auth,
        `${server} refused ROUNDTRIP_TOKEN (HTTP ${challenge.status}, ${reason})${needs}; mint a new token for it, or unset ROUNDTRIP_TOKEN to use \`roundtrip login\``,
      );
    },
  };
}

function boundServer(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ROUNDTRIP_TOKEN_SERVER) return checkServerUrl(env.ROUNDTRIP_TOKEN_SERVER);
  if (env.ROUNDTRIP_SERVER) return checkServerUrl(env.ROUNDTRIP_SERVER);
  return undefined;
}
