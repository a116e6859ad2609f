import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { silentLogger } from "../../protocol/logger.js";
import { McpServer } from "../index.js";
import { toElicitationSchema } from "../mcp-server/elicitation-schema.js";
import { acceptedContent } from "../mcp-server/input-responses.js";
import { serveStdio } from "../transport/stdio-server.js";
import { V1PipeTransport } from "./test-support/v1-stdio.js";

const Name = z.object({ name: z.string() });

function rawStdio(mcp: McpServer) {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = serveStdio(mcp, { input, output });
  const lines = createInterface({ input: output })[Symbol.asyncIterator]();
  return {
    input,
    done,
    send: (message: unknown) => input.write(`${JSON.stringify(message)}\n`),
    next: async () => JSON.parse((await lines.next()).value as string) as unknown,
  };
}

describe("a 2025-era session on stdio", () => {
  it("serves the official v1 client: initialize, a bridged question on stdout, list changes, and ping", async () => {
    const mcp = new McpServer({ name: "stdio-greeter", version: "1.0.0" }, { logger: silentLogger });
    mcp.tool("greet", {}, (_args, ctx) => {
      const answer = acceptedContent(ctx.inputResponses, "name", Name);
      if (!answer) {
        return inputRequired({
          inputRequests: { name: elicitForm("Name?", toElicitationSchema(Name)) },
          requestState: "r1",
        });
      }
      return `Hello, ${answer.name} (${ctx.requestState})`;
    });
    const transport = new V1PipeTransport();
    const served = serveStdio(mcp, { input: transport.toServer, output: transport.fromServer });
    const client = new Client({ name: "v1-stdio", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    await client.connect(transport);
    expect(client.getServerVersion()).toEqual({ name: "stdio-greeter", version: "1.0.0" });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    expect(await client.callTool({ name: "greet", arguments: {} })).toEqual({
      content: [{ type: "text", text: "Hello, Ada (r1)" }],
    });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    mcp.tool("late", {}, () => "late");
    await changed;
    expect(await client.ping()).toEqual({});
    await client.close();
    await served;
  });

  it("refuses a session-only method before initialize, and answers a wrong answer's call with -32602", async () => {
    const mcp = new McpServer({ name: "stdio-raw", version: "1.0.0" }, { logger: silentLogger });
    mcp.tool("greet", {}, (_args, ctx) =>
      ctx.inputResponses
        ? "answered"
        : inputRequired({ inputRequests: { name: elicitForm("Name?", toElicitationSchema(Name)) } }),
    );
    // Raw lines: the 2026-07-28 wire-schema checks of the usual stdio peer do not apply to this era.
    const peer = rawStdio(mcp);
    peer.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32600 } });
    peer.send({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: { elicitation: {} },
        clientInfo: { name: "raw", version: "1" },
      },
    });
    expect(await peer.next()).toMatchObject({ id: 2, result: { protocolVersion: "2025-06-18" } });
    // Without it, the server may not ask the client anything.
    peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    peer.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "greet", arguments: {} } });
    const question = (await peer.next()) as { id: string; method: string };
    expect(question.method).toBe("elicitation/create");
    peer.send({ jsonrpc: "2.0", id: question.id, result: { roots: [] } });
    expect(await peer.next()).toMatchObject({ id: 3, error: { code: -32602 } });
    peer.input.end();
    await peer.done;
  });
});
