import type { FixtureTool } from "./catalogue.js";
import { text } from "./catalogue.js";

/** Tools whose input schemas matter on their own: 2020-12 keywords, and an argument mirrored in a header. */

const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const richSchema: FixtureTool = {
  definition: {
    name: "json_schema_2020_12_tool",
    description: "Takes a contact whose schema uses $defs, $anchor, allOf/anyOf and if/then/else",
    inputSchema: {
      $schema: JSON_SCHEMA_2020_12,
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, in plain data that is never awaited
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
  },
  call: (_ctx, params) => text(`Contact received: ${JSON.stringify(params.arguments ?? {})}`),
};

/** Its `region` argument travels in an `Mcp-Param-Region` header too, so gateways can route on it. */
const routedByHeader: FixtureTool = {
  definition: {
    name: "test_header_routed_lookup",
    description: "Looks a key up in one region; the region is mirrored in the Mcp-Param-Region header",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region", description: "Where to look" },
        key: { type: "string" },
      },
      required: ["region"],
    },
  },
  call: (_ctx, params) => {
    const region = params.arguments?.region;
    const key = params.arguments?.key;
    return text(`Looked up ${typeof key === "string" ? key : "everything"} in ${String(region)}.`);
  },
};

export const schemaTools: readonly FixtureTool[] = [richSchema, routedByHeader];
