import type { CarrierMethod } from "@roundtrip/sdk/protocol";

type Block = {
  type?: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  resource?: { uri?: string; text?: string };
};

function blockText(block: Block): string {
  if (block.type === "text") return block.text ?? "";
  if (block.type === "image" || block.type === "audio") {
    return `[${block.type} ${block.mimeType ?? ""}, ${Math.floor(((block.data ?? "").length * 3) / 4)} bytes]`;
  }
  if (block.type === "resource_link") return `[link ${block.uri ?? ""}]`;
  if (block.type === "resource") return block.resource?.text ?? `[resource ${block.resource?.uri ?? ""}]`;
  return `[${block.type ?? "unknown"} block]`;
}

/** A complete result as a person reads it; --json prints the whole result instead. */
export function resultText(method: CarrierMethod, result: Record<string, unknown>): string {
  if (method === "tools/call") {
    const parts = ((result.content as Block[] | undefined) ?? []).map(blockText);
    if (result.structuredContent !== undefined && parts.length === 0) {
      parts.push(JSON.stringify(result.structuredContent, null, 2));
    }
    return parts.join("\n");
  }
  if (method === "prompts/get") {
    const messages = (result.messages as { role: string; content: Block }[] | undefined) ?? [];
    return messages.map((m) => `${m.role}: ${blockText(m.content)}`).join("\n");
  }
  const contents =
    (result.contents as { uri: string; text?: string; blob?: string; mimeType?: string }[] | undefined) ?? [];
  return contents
    .map(
      (c) =>
        c.text ?? `[${c.mimeType ?? "binary"} ${c.uri}, ${Math.floor((c.blob?.length ?? 0) * 0.75)} bytes]`,
    )
    .join("\n");
}
