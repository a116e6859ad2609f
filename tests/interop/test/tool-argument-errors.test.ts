import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client } from "@roundtrip/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL } from "../src/ask-flow.js";
import { ADD } from "../src/bridge-scenario.js";
import { connectV1Http } from "../src/official-legacy-clients.js";
import { type OfficialServer, startOfficialServer } from "../src/official-server.js";
import { type ScenarioHttpServer, startScenarioHttpServer } from "../src/roundtrip-mcp-server.js";

/**
 * Arguments that fail a tool's input schema are a tool execution error on 2026-07-28 (an `isError`
 * result the model can read and correct), not a JSON-RPC error: Roundtrip's McpServer and the official
 * TypeScript SDK v2 server answer them alike, on both eras, and each side's client reads the other's
 * answer the same way.
 */

let roundtrip: ScenarioHttpServer;
let official: OfficialServer;
const open: OfficialClient[] = [];
beforeAll(async () => {
  [roundtrip, official] = await Promise.all([startScenarioHttpServer(), startOfficialServer()]);
});
afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
  await Promise.all([roundtrip.close(), official.close()]);
});

function firstText(result: { content?: unknown }): string {
  const block = Array.isArray(result.content) ? result.content[0] : undefined;
  return (block as { text?: string } | undefined)?.text ?? "";
}

describe("tool arguments that fail the input schema", () => {
  it("official client → Roundtrip McpServer: an isError result naming the field; the tool never runs", async () => {
    const client = new OfficialClient(
      { name: "official-interop-client", version: "2.4.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(roundtrip.url)));
    open.push(client);
    expect(client.getProtocolEra()).toBe("modern");
    const before = roundtrip.calls.count(ADD);
    const result = await client.callTool({ name: ADD, arguments: { a: 1, b: "two" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^Invalid arguments for tool 'add': field 'b': /);
    expect(roundtrip.calls.count(ADD)).toBe(before);
  });

  it("official v1 client on a 2025-era session → Roundtrip McpServer: the same isError result", async () => {
    const client = await connectV1Http(roundtrip.url);
    try {
      expect(client.protocolVersion()).toBe("2025-11-25");
      const before = roundtrip.calls.count(ADD);
      const result = await client.callTool(ADD, { a: "one", b: 2 });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/^Invalid arguments for tool 'add': field 'a': /);
      expect(roundtrip.calls.count(ADD)).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("Roundtrip client → official server: the official server's isError result, not an McpError", async () => {
    const client = new Client(official.url);
    try {
      const result = await client.callTool(TOOL, { rounds: "three" });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/rounds/);
    } finally {
      await client.close();
    }
  });
});
