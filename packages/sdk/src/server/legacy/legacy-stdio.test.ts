import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { silentLogger } from "../../protocol/logger.js";
import { toElicitationSchema } from "../mcp/elicitation-schema.js";
import { acceptedContent } from "../mcp/input-responses.js";
import { McpServer } from "../mcp/mcp-server.js";
import { serveStdio } from "../transport/stdio-server.js";
import { V1PipeTransport } from "./test-support/v1-stdio.js";

const Name = z.object({ name: z.string() });

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
});
