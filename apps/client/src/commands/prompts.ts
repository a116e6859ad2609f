import type { Client } from "@roundtrip/sdk/client";
import type { Prompt } from "@roundtrip/sdk/protocol";
import type { GlobalFlags } from "../config/settings.js";
import type { ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";
import { allPages, cursorOf } from "./all-pages.js";
import { listingCommand } from "./listing.js";

function listAllPrompts(client: Client): Promise<Prompt[]> {
  return allPages(async (cursor) => {
    const { prompts, nextCursor } = await client.listPrompts(cursorOf(cursor));
    return { items: prompts, nextCursor };
  });
}

/** A prompt with its arguments, each marked required or optional: what `roundtrip prompt` takes. */
function promptText(prompt: Prompt): string {
  const lines = [
    prompt.title && prompt.title !== prompt.name ? `${prompt.name} (${prompt.title})` : prompt.name,
  ];
  if (prompt.description) lines.push(`  ${prompt.description}`);
  for (const argument of prompt.arguments ?? []) {
    const description = argument.description ? `: ${argument.description}` : "";
    lines.push(`  ${argument.name} (${argument.required ? "required" : "optional"})${description}`);
  }
  return lines.join("\n");
}

export function promptsCommand(
  flags: GlobalFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  return listingCommand(flags, terminal, async (client) => {
    const prompts = await listAllPrompts(client);
    if (writer.json) writer.document({ prompts });
    else if (prompts.length === 0) writer.text("The server offers no prompts.");
    else writer.text(prompts.map(promptText).join("\n"));
  });
}
