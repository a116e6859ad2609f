import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { RequestMeta } from "../../protocol/schemas/envelope.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";
import { checkHeaderAgreement, checkParamAgreement } from "./header-agreement.js";

const REGION_TOOL: Tool = {
  name: "forecast",
  inputSchema: {
    type: "object",
    properties: { region: { type: "string", "x-mcp-header": "Region" } },
  },
};

/** Both checks, as a request meets them: the head first, then the called tool's parameters, when known. */
async function check(request: JsonRpcRequest, headers: Record<string, string | undefined>): Promise<void> {
  const meta = request.params?._meta as RequestMeta;
  checkHeaderAgreement(headers, request, meta);
  const params = request.params ?? {};
  if (request.method === "tools/call" && params.name === REGION_TOOL.name) {
    checkParamAgreement(headers, REGION_TOOL, params.arguments as Record<string, unknown> | undefined);
  }
}

async function mismatch(request: JsonRpcRequest, headers: Record<string, string | undefined>) {
  const error = await check(request, headers).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(-32020);
  return (error as McpError).message;
}

describe("checkHeaderAgreement and checkParamAgreement", () => {
  it("accepts the headers a correct client sends, for each carrier method", async () => {
    for (const request of [
      rpcRequest("tools/list"),
      rpcRequest("tools/call", { name: "echo", arguments: {} }),
      rpcRequest("prompts/get", { name: "greet" }),
      rpcRequest("resources/read", { uri: "file:///a.txt" }),
      rpcRequest("tools/call", { name: REGION_TOOL.name, arguments: { region: "eu" } }),
    ]) {
      await expect(check(request, mcpHeaders(request, REGION_TOOL))).resolves.toBeUndefined();
    }
  });

  it("names the header and both values", async () => {
    const request = rpcRequest("tools/call", { name: "echo" });
    expect(await mismatch(request, { ...mcpHeaders(request), "mcp-method": "tools/list" })).toBe(
      "Header mismatch: Mcp-Method header value 'tools/list' does not match body value 'tools/call'",
    );
    expect(await mismatch(request, { ...mcpHeaders(request), "mcp-protocol-version": "2025-06-18" })).toMatch(
      /^Header mismatch: MCP-Protocol-Version header value '2025-06-18' does not match body value/,
    );
    expect(await mismatch(request, { ...mcpHeaders(request), "mcp-name": undefined })).toBe(
      "Header mismatch: required header Mcp-Name is missing",
    );
  });

  it("compares resources/read by uri", async () => {
    const request = rpcRequest("resources/read", { uri: "file:///a.txt" });
    expect(await mismatch(request, { ...mcpHeaders(request), "mcp-name": "a.txt" })).toBe(
      "Header mismatch: Mcp-Name header value 'a.txt' does not match body value 'file:///a.txt'",
    );
  });

  it("refuses a header value with invalid characters", async () => {
    const request = rpcRequest("tools/call", { name: "echo" });
    expect(await mismatch(request, { ...mcpHeaders(request), "mcp-name": "a\tb" })).toBe(
      "Header mismatch: Mcp-Name header has invalid characters or encoding",
    );
  });

  it("checks the Mcp-Param-* headers of annotated tools only", async () => {
    const annotated = rpcRequest("tools/call", { name: REGION_TOOL.name, arguments: { region: "eu" } });
    await mismatch(annotated, { ...mcpHeaders(annotated, REGION_TOOL), "mcp-param-region": "us" });
    await mismatch(annotated, { ...mcpHeaders(annotated, REGION_TOOL), "mcp-param-region": undefined });
    const unknown = rpcRequest("tools/call", { name: "echo", arguments: { region: "eu" } });
    await expect(
      check(unknown, { ...mcpHeaders(unknown), "mcp-param-region": "us" }),
    ).resolves.toBeUndefined();
  });
});
