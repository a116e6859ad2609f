import type { Client } from "@roundtrip/sdk/client";
import type { Resource, ResourceTemplate } from "@roundtrip/sdk/protocol";
import type { GlobalFlags } from "../config/settings.js";
import type { ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import type { Terminal } from "../terminal.js";
import { allPages, cursorOf } from "./all-pages.js";
import { listingCommand, namesAndDescriptions } from "./listing.js";

function listAllResources(client: Client): Promise<Resource[]> {
  return allPages(async (cursor) => {
    const { resources, nextCursor } = await client.listResources(cursorOf(cursor));
    return { items: resources, nextCursor };
  });
}

function listAllTemplates(client: Client): Promise<ResourceTemplate[]> {
  return allPages(async (cursor) => {
    const { resourceTemplates, nextCursor } = await client.listResourceTemplates(cursorOf(cursor));
    return { items: resourceTemplates, nextCursor };
  });
}

function about(entry: { name: string; title?: string; description?: string; mimeType?: string }): string {
  const label = entry.title ?? entry.name;
  const parts = [entry.description ? `${label}: ${entry.description}` : label];
  if (entry.mimeType) parts.push(`(${entry.mimeType})`);
  return parts.join(" ");
}

/** Static resources (read with `roundtrip read <uri>`) and templates (fill in the {variables} first). */
export function resourcesCommand(
  flags: GlobalFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  return listingCommand(flags, terminal, async (client) => {
    const resources = await listAllResources(client);
    const resourceTemplates = await listAllTemplates(client);
    if (writer.json) {
      writer.document({ resources, resourceTemplates });
      return;
    }
    const sections: string[] = [];
    if (resources.length > 0) {
      sections.push(`Resources:\n${indent(namesAndDescriptions(resources.map((r) => [r.uri, about(r)])))}`);
    }
    if (resourceTemplates.length > 0) {
      const rows = resourceTemplates.map((t) => [t.uriTemplate, about(t)] as const);
      sections.push(`Templates (fill in each {variable}, then read):\n${indent(namesAndDescriptions(rows))}`);
    }
    writer.text(sections.length > 0 ? sections.join("\n\n") : "The server offers no resources.");
  });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
