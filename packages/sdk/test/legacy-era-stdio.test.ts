import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ClientOptions } from "../src/client/client.js";
import { silentLogger } from "../src/protocol/logger.js";

/** The Client against the official TypeScript SDK v1 server (1.32.2) as a child process on stdio. */

const main = fileURLToPath(new URL("./support/official-v1-stdio-main.ts", import.meta.url));

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function spawnOfficial(options: ClientOptions = {}): Client {
  const client = new Client(
    { command: process.execPath, args: typescriptArgs(main), stderr: "pipe", shutdownGraceMs: 5000 },
    { logger: silentLogger, ...options },
  );
  clients.push(client);
  return client;
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("Client and the official v1 server over stdio", () => {
  it("negotiates the 2025 era (server/discover: Method not found), then lists and calls", async () => {
    const mcp = spawnOfficial();
    await mcp.connect();
    expect(mcp.era).toBe("legacy");
    expect(mcp.protocolVersion).toBe("2025-11-25");
    expect(mcp.serverInfo?.name).toBe("official-v1");
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["add", "greet", "plan", "where"]));
    expect(text(await mcp.callTool("add", { a: 20, b: 22 }))).toBe("42");
  }, 120_000);

  it("answers elicitation, sampling and roots requests written on stdout with the callbacks", async () => {
    const mcp = spawnOfficial({
      era: "legacy",
      onElicit: () => ({ action: "accept", content: { city: "Porto" } }),
      onSample: () => ({ role: "assistant", content: { type: "text", text: "wine" }, model: "m" }),
      onListRoots: () => ({ roots: [{ uri: "file:///srv" }] }),
    });
    expect(text(await mcp.callTool("plan", {}))).toBe("Porto: wine");
    expect(text(await mcp.callTool("where", {}))).toBe("file:///srv");
  }, 120_000);
});
