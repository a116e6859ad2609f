import type { Client } from "@roundtrip/sdk/client";
import { type GlobalFlags, requireTarget, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { Terminal } from "../terminal.js";

/** tools, prompts and resources: connect, list, print, close. */
export async function listingCommand(
  flags: GlobalFlags,
  terminal: Terminal,
  list: (client: Client) => Promise<void>,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const connection = await connect({
    ...requireTarget(settings),
    home: settings.home,
    terminal,
    browser: true,
  });
  try {
    await list(connection.client);
    return ExitCode.ok;
  } finally {
    await connection.close();
  }
}

/** One line per entry, the names aligned. */
export function namesAndDescriptions(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, text]) => `${name.padEnd(width)}  ${text}`.trimEnd()).join("\n");
}
