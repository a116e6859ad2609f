import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../protocol/logger.js";
import { errorOf, post, type RunningHttpServer, resultOf, startHttpServer } from "../../test-support/http.js";
import { rpcRequest } from "../../test-support/messages.js";
import { McpServer } from "./mcp-server.js";

let http: RunningHttpServer;
beforeAll(async () => {
  const mcp = new McpServer({ name: "catalog", version: "1.0.0" }, { logger: silentLogger });
  mcp.tool("add", {}, () => "3");
  mcp.prompt("brief", {}, () => "Brief me");
  mcp.resource("readme", { uri: "docs://readme" }, () => "read me");
  mcp.resource("ticket", { uri: "tickets://{id}" }, ({ id }) => `ticket ${id}`);
  http = await startHttpServer(mcp.server);
});
afterAll(() => http.close());

const LISTS = [
  ["tools/list", "tools"],
  ["prompts/list", "prompts"],
  ["resources/list", "resources"],
  ["resources/templates/list", "resourceTemplates"],
] as const;

describe("McpServer lists in one page", () => {
  it.each(LISTS)("%s lists everything without a cursor and hands out none", async (method, key) => {
    const result = resultOf(await post(http.url, rpcRequest(method)));
    expect(result[key]).toHaveLength(1);
    expect(result).not.toHaveProperty("nextCursor");
  });

  it.each(LISTS)("%s refuses a cursor it never issued with -32602", async (method) => {
    for (const cursor of ["bogus", ""]) {
      const reply = await post(http.url, rpcRequest(method, { cursor }));
      expect(errorOf(reply)).toEqual({
        code: -32602,
        message: `Invalid cursor: this server did not issue it; ${method} returns every entry in one page, so send it without a cursor`,
      });
    }
  });
});
