import type { Tool } from "@roundtrip/sdk/protocol";

interface PropertySchema {
  type?: unknown;
  description?: unknown;
  enum?: unknown;
}

/** A JSON Schema property's type in a few characters: `string`, `integer`, `one of a|b`, `string[]`. */
function typeOf(property: PropertySchema & { items?: PropertySchema }): string {
  if (Array.isArray(property.enum)) return `one of ${property.enum.map(String).join("|")}`;
  if (property.type === "array" && property.items) return `${typeOf(property.items)}[]`;
  if (Array.isArray(property.type)) return property.type.map(String).join("|");
  return typeof property.type === "string" ? property.type : "any";
}

/** `tools --long`: each tool with its arguments (type, required, description) and its annotations. */
export function toolDetails(tool: Tool): string {
  const lines = [tool.title && tool.title !== tool.name ? `${tool.name} (${tool.title})` : tool.name];
  if (tool.description) lines.push(`  ${tool.description}`);
  const schema = tool.inputSchema as {
    properties?: Record<string, PropertySchema & { items?: PropertySchema }>;
    required?: unknown;
  };
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) lines.push("  arguments: none");
  else lines.push("  arguments:");
  for (const [name, property] of properties) {
    const flags = [typeOf(property), required.includes(name) ? "required" : "optional"].join(", ");
    const description = typeof property.description === "string" ? `: ${property.description}` : "";
    lines.push(`    ${name} (${flags})${description}`);
  }
  const annotations = Object.entries(tool.annotations ?? {}).filter(([key]) => key !== "title");
  if (annotations.length > 0) {
    lines.push(
      `  annotations: ${annotations.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")}`,
    );
  }
  return lines.join("\n");
}
