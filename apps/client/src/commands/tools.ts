import type { Client } from "@roundtrip/sdk/client";
import type { Tool } from "@roundtrip/sdk/protocol";
import type { GlobalFlags } from "../config/settings.js";
import type { ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";
import { allPages, cursorOf } from "./all-pages.js";
import { listingCommand, namesAndDescriptions } from "./listing.js";
import { toolDetails } from "./tool-details.js";

export interface ToolsFlags extends GlobalFlags {
  long?: boolean;
}

/** Every tool of the server, all pages. */
export function listAllTools(client: Client): Promise<Tool[]> {
  return allPages(async (cursor) => {
    const { tools, nextCursor } = await client.listTools(cursorOf(cursor));
    return { items: tools, nextCursor };
  });
}

export function toolsCommand(
  flags: ToolsFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  return listingCommand(flags, terminal, async (client) => {
    const tools = await listAllTools(client);
    if (writer.json) writer.document({ tools });
    else if (tools.length === 0) writer.text("The server offers no tools.");
    else if (flags.long) writer.text(tools.map(toolDetails).join("\n\n"));
    else writer.text(namesAndDescriptions(tools.map((t) => [t.name, t.description ?? t.title ?? ""])));
  });
}
