import type { Tool } from "@roundtrip/sdk";
import { type GlobalFlags, requireServer, resolveSettings } from "../config/settings.js";
import { connect } from "../connection.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";

const MAX_PAGES = 100;

/** Every tool of the server, all pages. */
export async function listAllTools(client: Awaited<ReturnType<typeof connect>>["client"]): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

export async function toolsCommand(
  flags: GlobalFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  const settings = await resolveSettings(flags);
  const connection = await connect({
    server: requireServer(settings),
    home: settings.home,
    terminal,
    browser: true,
  });
  try {
    const tools = await listAllTools(connection.client);
    if (writer.json) {
      writer.document({ tools });
    } else if (tools.length === 0) {
      writer.text("The server offers no tools.");
    } else {
      const width = Math.max(...tools.map((t) => t.name.length));
      writer.text(
        tools.map((t) => `${t.name.padEnd(width)}  ${t.description ?? t.title ?? ""}`.trimEnd()).join("\n"),
      );
    }
    return ExitCode.ok;
  } finally {
    await connection.close();
  }
}
