import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingLogger } from "../test-support/in-process.js";
import { mcpHeaders, rpcRequest } from "../test-support/messages.js";
import { Server } from "./index.js";
import { createNodeHandler } from "./transport/http-server.js";

let url = "";
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const server = new Server({ name: "roundtrip-unit", version: "9.9.9" }, { logger: recordingLogger() })
    .onListTools(() => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }))
    .onCallTool(() => ({ content: [{ type: "text", text: "ok" }] }));
  const handle = createNodeHandler(server);
  const http = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
});

afterAll(() => close());

async function post(method: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = rpcRequest(method);
  const response = await fetch(url, {
    method: "POST",
    headers: mcpHeaders(request),
    body: JSON.stringify(request),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("Server: method names that are also Object's own names", () => {
  // The method table is a plain object: a lookup that walked its prototype would find an entry for
  // each of these, with no handler behind it, and the request would fail as an internal error.
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"])(
    "answers %s over HTTP with -32601, and keeps serving",
    async (method) => {
      const { status, body } = await post(method);
      expect(status).toBeLessThan(500);
      expect(body.error).toEqual({ code: -32601, message: `Method not found: ${method}` });
      const listed = await post("tools/list");
      expect(listed.status).toBe(200);
      expect(listed.body.result).toMatchObject({ tools: [{ name: "t" }] });
    },
  );
});
