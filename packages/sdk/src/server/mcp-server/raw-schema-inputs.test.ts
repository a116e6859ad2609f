import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { post, type RunningHttpServer, resultOf, startHttpServer } from "../../test-support/http.js";
import { rpcRequest } from "../../test-support/messages.js";
import { McpServer } from "../index.js";

/**
 * Raw JSON Schema inputs are validated as JSON Schema (2020-12 unless `$schema` says otherwise), so
 * keywords zod cannot express are enforced as written, over the real HTTP transport.
 */

const SHIPPING = {
  type: "object",
  properties: {
    method: { enum: ["post", "courier"] },
    address: { type: "string" },
    phone: { type: "string" },
    weight: { $ref: "#/$defs/grams" },
  },
  required: ["method"],
  if: { properties: { method: { const: "courier" } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's conditional keyword; an object, never awaited
  then: { required: ["phone"] },
  else: { required: ["address"] },
  dependentRequired: { phone: ["address"] },
  unevaluatedProperties: false,
  $defs: { grams: { type: "integer", minimum: 1, maximum: 30000 } },
};

const LEGACY_DIALECT = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
  required: ["code"],
};

let http: RunningHttpServer;
const ran: unknown[] = [];
beforeAll(async () => {
  const mcp = new McpServer({ name: "shipping", version: "1.0.0" }, { logger: silentLogger });
  mcp.tool("ship", { input: SHIPPING }, (args) => {
    ran.push(args);
    return "shipped";
  });
  mcp.tool("airport", { input: LEGACY_DIALECT }, ({ code }) => String(code));
  http = await startHttpServer(mcp.server);
});
afterAll(() => http.close());

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const reply = await post(http.url, rpcRequest("tools/call", { name, arguments: args }));
  return resultOf(reply) as CallToolResult;
}

function problemOf(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

describe("raw JSON Schema inputs", () => {
  it("lists the schema exactly as registered", async () => {
    const listed = resultOf(await post(http.url, rpcRequest("tools/list"))).tools as {
      inputSchema: unknown;
    }[];
    expect(listed.map((tool) => tool.inputSchema)).toEqual([LEGACY_DIALECT, SHIPPING]);
  });

  it.each([
    [{ method: "post", address: "1 Main St" }],
    [{ method: "courier", phone: "555", address: "1 Main St", weight: 1200 }],
  ])(
    "runs the tool for arguments that satisfy if/then/else, dependentRequired and $ref: %j",
    async (args) => {
      expect(await call("ship", args)).toMatchObject({ content: [{ type: "text", text: "shipped" }] });
      expect(ran.at(-1)).toEqual(args);
    },
  );

  it.each([
    [
      "then",
      { method: "courier", address: "1 Main St" },
      'Instance does not have required property "phone".',
    ],
    ["else", { method: "post" }, 'Instance does not have required property "address".'],
    [
      "dependentRequired",
      { method: "courier", phone: "555" },
      'Instance has "phone" but does not have "address".',
    ],
    [
      "unevaluatedProperties",
      { method: "post", address: "1 Main St", gift: true },
      'Property "gift" does not match unevaluated properties schema.',
    ],
    [
      "a $ref under $defs",
      { method: "post", address: "1 Main St", weight: 0 },
      "field 'weight': Value is less than 1.",
    ],
  ])(
    "answers arguments that break %s with an isError result naming the rule",
    async (_keyword, args, problem) => {
      const before = ran.length;
      expect(problemOf(await call("ship", args))).toBe(`Invalid arguments for tool 'ship': ${problem}`);
      expect(ran).toHaveLength(before);
    },
  );

  it("never quotes the rejected value", async () => {
    const text = problemOf(await call("ship", { method: "post", address: "1 Main St", weight: 987654321 }));
    expect(text).not.toContain("987654321");
  });

  it("answers a property name with an unpaired surrogate with an isError result, not a failure", async () => {
    const args = JSON.parse('{"method": "post", "address": "1 Main St", "\\ud800": 1}') as Record<
      string,
      unknown
    >;
    expect(problemOf(await call("ship", args))).toBe(
      "Invalid arguments for tool 'ship': a property name is not well-formed Unicode (it holds an unpaired surrogate)",
    );
  });

  it("validates a schema that declares draft-07 as draft-07", async () => {
    expect(await call("airport", { code: "OSL" })).toMatchObject({
      content: [{ type: "text", text: "OSL" }],
    });
    expect(problemOf(await call("airport", { code: "osl" }))).toBe(
      "Invalid arguments for tool 'airport': field 'code': String does not match pattern.",
    );
  });
});
