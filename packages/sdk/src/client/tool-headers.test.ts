import { afterEach, describe, expect, it } from "vitest";
import { Client } from "./client.js";
import { ToolRejectedError } from "./errors.js";
import { discoverResult, type HttpPeer, json, serveScripted } from "./test-support/http-peer.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

const TOOLS = [
  {
    name: "tagged",
    inputSchema: {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", "x-mcp-header": "Tag" } } },
    },
  },
  {
    name: "referenced",
    inputSchema: {
      type: "object",
      properties: { region: { $ref: "#/$defs/region" } },
      $defs: { region: { type: "string", "x-mcp-header": "Region" } },
    },
  },
  {
    name: "plain",
    inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
  },
];

describe("tools whose x-mcp-header is out of reach", () => {
  it("are dropped from tools/list with a warning each, and refused when called", async () => {
    const peer = await serveScripted(({ body }, res) => {
      if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
      json(res, 200, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: TOOLS } });
    });
    peers.push(peer);
    const warned: unknown[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (fields: unknown) => warned.push(fields) };
    const client = new Client(peer.url, { logger });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["plain"]);
    expect(warned).toEqual([
      { tool: "tagged", reason: expect.stringContaining("/properties/tags/items") },
      { tool: "referenced", reason: expect.stringContaining("/$defs/region") },
    ]);
    await expect(client.callTool("tagged", { tags: ["a"] })).rejects.toBeInstanceOf(ToolRejectedError);
    expect(peer.seen.filter((seen) => seen.body.method === "tools/call")).toHaveLength(0);
  });
});
