import { resourceCovers } from "@roundtrip/sdk/oauth-client";
import { LoginProfiles } from "../auth/login-profiles.js";
import { FileTokenStore } from "../auth/token-store.js";
import { type GlobalFlags, requireServer, resolveSettings } from "../config/settings.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";

export interface LogoutFlags extends GlobalFlags {
  all?: boolean;
}

/** Forgets the tokens and the sign-in settings of one server, or of every server with --all. */
export async function logoutCommand(
  flags: LogoutFlags,
  _terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  if (settings.stdio !== undefined) {
    throw new CliError(
      ExitCode.usage,
      "a --stdio server takes its credentials from its environment, not from a login; drop --stdio",
    );
  }
  const store = new FileTokenStore(settings.home);
  const profiles = new LoginProfiles(settings.home);
  let removed: number;
  let servers: string[];
  if (flags.all) {
    removed = await store.deleteWhere(() => true);
    servers = await profiles.delete();
  } else {
    const server = requireServer(settings);
    removed = await store.deleteWhere((tokens) => resourceCovers(tokens.resource, server));
    servers = await profiles.delete(server);
  }
  if (writer.json) writer.document({ status: "logged-out", servers, tokensRemoved: removed });
  else if (removed === 0 && servers.length === 0) writer.text("There was nothing to log out of.");
  else
    writer.text(
      `Logged out${flags.all ? " of every server" : ` of ${servers[0] ?? settings.server}`}: ${removed} cached token set(s) deleted.`,
    );
  return ExitCode.ok;
}
