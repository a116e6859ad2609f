import { resourceCovers } from "@roundtrip/sdk/oauth-client";
import { type LoginProfile, LoginProfiles } from "../auth/login-profiles.js";
import { discoverResourceIssuer } from "../auth/resource-issuer.js";
import { StagedTokenStore } from "../auth/staged-token-store.js";
import { FileTokenStore } from "../auth/token-store.js";
import { tokenSubject } from "../auth/token-subject.js";
import { type GlobalFlags, requireServer, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { untilInterrupted } from "../interruptible.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";

export interface LoginFlags extends GlobalFlags {
  clientId?: string;
  clientSecret?: string;
  issuer?: string;
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

function checkIssuer(value: string): string {
  if (URL.canParse(value)) return value;
  throw new CliError(
    ExitCode.usage,
    `--issuer must be the authorization server's issuer URL, e.g. https://auth.example.com, got ${value}`,
  );
}

/**
 * The authorization server a client secret is for, when --issuer does not say: the one the server's
 * metadata names now, found before the secret is sent, and said aloud since it is trusted from here on.
 */
async function secretIssuer(server: string, terminal: Terminal): Promise<string> {
  const issuer = await discoverResourceIssuer(server);
  if (issuer === undefined) throw nothingToSignIn(server);
  terminal.notice(
    `${server} names the authorization server ${issuer}: the client secret is sent there, and never to another (pass --issuer to name it yourself).`,
  );
  return issuer;
}

function nothingToSignIn(server: string): CliError {
  return new CliError(
    ExitCode.auth,
    `${server} did not ask for credentials, so there was nothing to sign in to`,
  );
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
  if (settings.stdio !== undefined) {
    throw new CliError(
      ExitCode.usage,
      "a --stdio server takes its credentials from its environment, not from a login; drop --stdio",
    );
  }
  const server = requireServer(settings);
  if (flags.clientSecret !== undefined && flags.clientId === undefined) {
    throw new CliError(ExitCode.usage, "--client-secret needs --client-id");
  }
  if (flags.issuer !== undefined && flags.clientId === undefined) {
    throw new CliError(
      ExitCode.usage,
      "--issuer says whose client --client-id is; without --client-id there is nothing to pin",
    );
  }
  const callbackPort = portOf(flags.callbackPort);
  const issuer =
    flags.issuer === undefined
      ? flags.clientSecret === undefined
        ? undefined
        : await secretIssuer(server, terminal)
      : checkIssuer(flags.issuer);
  const profile: LoginProfile = {
    grant: flags.clientSecret !== undefined ? "client_credentials" : "authorization_code",
    ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
    ...(flags.clientSecret === undefined ? {} : { clientSecret: flags.clientSecret }),
    ...(issuer === undefined ? {} : { issuer }),
    ...(flags.scope === undefined ? {} : { scope: flags.scope }),
    ...(callbackPort === undefined ? {} : { callbackPort }),
  };
  // The sign-in runs aside, with tokens in memory: the login on disk is replaced only once it has
  // succeeded, so a failed or interrupted (Ctrl+C) login leaves the working one as it was.
  const staged = new StagedTokenStore();
  const connection = await connect({
    server,
    home: settings.home,
    terminal,
    browser: flags.browser !== false,
    login: { profile, store: staged },
  });
  try {
    await untilInterrupted(
      connection.client.connect(),
      `interrupted: nothing was saved, and the earlier login to ${server} (if any) is kept`,
    );
  } finally {
    await connection.close();
  }
  const obtained = staged.entries().filter((entry) => resourceCovers(entry.tokens.resource, server));
  const stored = obtained.at(-1)?.tokens;
  // No tokens: the server let the request through without asking for credentials.
  if (!stored) throw nothingToSignIn(server);
  const store = new FileTokenStore(settings.home);
  await store.deleteWhere((tokens) => resourceCovers(tokens.resource, server));
  for (const { key, tokens } of obtained) await store.set(key, tokens);
  // A pre-registered id belongs to the authorization server it was just used with: pinned from now on.
  const pinned = profile.clientId !== undefined && profile.issuer === undefined;
  await new LoginProfiles(settings.home).set(
    server,
    pinned ? { ...profile, issuer: stored.issuer } : profile,
  );
  const notGranted = scopesNotGranted(flags.scope, stored.scope);
  const subject = tokenSubject(stored.accessToken);
  const summary = {
    status: "logged-in",
    server,
    grant: profile.grant,
    issuer: stored.issuer,
    clientId: stored.clientId,
    ...(subject === undefined ? {} : { subject }),
    ...(stored.scope ? { scope: stored.scope } : {}),
    ...(flags.scope === undefined ? {} : { scopeRequested: flags.scope }),
    ...(notGranted.length > 0 ? { scopeNotGranted: notGranted } : {}),
    ...(stored.expiresAt ? { expiresAt: new Date(stored.expiresAt).toISOString() } : {}),
  };
  if (writer.json) writer.document(summary);
  else
    writer.text(
      `Logged in to ${server} at ${stored.issuer} as client ${stored.clientId}${stored.scope ? ` (scope ${stored.scope})` : ""}${subject === undefined ? "" : `, signed in as ${subject}`}.`,
    );
  if (notGranted.length > 0) {
    terminal.notice(
      `${stored.issuer} did not grant ${notGranted.join(" ")} of the scopes asked for (${flags.scope}); commands that need ${notGranted.length > 1 ? "them" : "it"} will be refused. Check the scope names the server advertises, or ask its administrator.`,
    );
  }
  return ExitCode.ok;
}

/**
 * The scopes --scope asked for that the token response did not grant: an authorization server drops
 * scopes it does not know without an error, and a later command would then fail on a missing scope.
 */
function scopesNotGranted(requested: string | undefined, granted: string | undefined): string[] {
  if (requested === undefined || granted === undefined) return [];
  const have = new Set(granted.split(" "));
  return requested.split(" ").filter((scope) => scope !== "" && !have.has(scope));
}
