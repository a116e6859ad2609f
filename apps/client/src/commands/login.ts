import { resourceCovers } from "@roundtrip/sdk/oauth";
import { type LoginProfile, LoginProfiles } from "../auth/login-profiles.js";
import { FileTokenStore } from "../auth/token-store.js";
import { type GlobalFlags, requireServer, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";

export interface LoginFlags extends GlobalFlags {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  callbackPort?: string;
  browser?: boolean;
}

function portOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(
      ExitCode.usage,
      `--callback-port must be a port number (0 picks a free one), got ${value}`,
    );
  }
  return port;
}

/**
 * Signs in to a server and remembers how: with --client-secret as that confidential client
 * (client_credentials), otherwise as a person in the browser (authorization code + PKCE). The first
 * request after the old tokens are dropped draws the server's challenge, which the SDK answers.
 */
export async function loginCommand(
  flags: LoginFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const server = requireServer(settings);
  if (flags.clientSecret !== undefined && flags.clientId === undefined) {
    throw new CliError(ExitCode.usage, "--client-secret needs --client-id");
  }
  const callbackPort = portOf(flags.callbackPort);
  const profile: LoginProfile = {
    grant: flags.clientSecret !== undefined ? "client_credentials" : "authorization_code",
    ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
    ...(flags.clientSecret === undefined ? {} : { clientSecret: flags.clientSecret }),
    ...(flags.scope === undefined ? {} : { scope: flags.scope }),
    ...(callbackPort === undefined ? {} : { callbackPort }),
  };
  const store = new FileTokenStore(settings.home);
  const profiles = new LoginProfiles(settings.home);
  // A fresh sign-in: tokens from an earlier login to this server would otherwise just be reused.
  await store.deleteWhere((tokens) => resourceCovers(tokens.resource, server));
  const previous = await profiles.get(server);
  await profiles.set(server, profile);
  const connection = await connect({
    server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
  });
  try {
    await connection.client.connect();
  } catch (error) {
    if (previous) await profiles.set(server, previous);
    else await profiles.delete(server);
    throw error;
  } finally {
    await connection.close();
  }
  const stored = (await store.entries()).find((entry) =>
    resourceCovers(entry.tokens.resource, server),
  )?.tokens;
  if (!stored) {
    // The server let the request through without asking for credentials.
    await profiles.delete(server);
    throw new CliError(
      ExitCode.auth,
      `${server} did not ask for credentials, so there was nothing to sign in to`,
    );
  }
  const summary = {
    status: "logged-in",
    server,
    grant: profile.grant,
    issuer: stored.issuer,
    clientId: stored.clientId,
    ...(stored.scope ? { scope: stored.scope } : {}),
    ...(stored.expiresAt ? { expiresAt: new Date(stored.expiresAt).toISOString() } : {}),
  };
  if (writer.json) writer.document(summary);
  else
    writer.text(
      `Logged in to ${server} at ${stored.issuer} as client ${stored.clientId}${stored.scope ? ` (scope ${stored.scope})` : ""}.`,
    );
  return ExitCode.ok;
}
