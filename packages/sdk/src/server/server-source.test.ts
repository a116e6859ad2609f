import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client } from "../client/client.js";
import { silentLogger } from "../protocol/logger.js";
import { McpServer, Server } from "./index.js";
import { serverOf } from "./server.js";
import { createNodeHandler } from "./transport/http-server.js";

function greeter(): McpServer {
  const mcp = new McpServer({ name: "greeter", version: "1.0.0" }, { logger: silentLogger });
  mcp.tool("greet", { input: z.object({ who: z.string() }) }, ({ who }) => `Hello, ${who}!`);
  return mcp;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("transports take an McpServer as they take a Server", () => {
  it("serverOf unwraps an McpServer and passes a Server through", () => {
    const mcp = greeter();
    expect(serverOf(mcp)).toBe(mcp.server);
    const plain = new Server({ name: "plain", version: "1" });
    expect(serverOf(plain)).toBe(plain);
  });

  it("createNodeHandler serves an McpServer over real HTTP", async () => {
    const handle = createNodeHandler(greeter());
    const http = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => http.close(() => resolve())));
    const client = new Client(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, {
      logger: silentLogger,
    });
    closers.push(() => client.close());
    const result = await client.callTool("greet", { who: "Ada" });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });

  it("a Client talks to an McpServer in memory", async () => {
    const client = new Client(greeter(), { logger: silentLogger });
    closers.push(() => client.close());
    const result = await client.callTool("greet", { who: "Grace" });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Grace!" }]);
  });
});
