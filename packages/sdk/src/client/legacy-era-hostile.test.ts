import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../protocol/logger.js";
import { Client } from "./client.js";
import { ProtocolViolationError, VersionNegotiationError } from "./errors.js";
import { type HttpPeer, json, type SeenRequest, serveScripted } from "./test-support/http-peer.js";
import { ConnectionFailedError, HttpStatusError } from "./transport/http-errors.js";

/** 2025-era servers that misbehave, scripted to send what a well-behaved one never would. */

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

type Answer = (request: SeenRequest) => unknown;

/** A session-less 2025-era server: refuses server/discover, answers initialize and the rest with `answer`. */
async function legacyPeer(answer: Answer, initialize?: Record<string, unknown>): Promise<HttpPeer> {
  const peer = await serveScripted((request, res, req) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const { body } = request;
    if (body.method === "server/discover") {
      return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request" } });
    }
    if (body.method === "initialize") {
      return json(res, 200, {
        jsonrpc: "2.0",
        id: body.id,
        result: initialize ?? {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "hostile", version: "1" },
        },
      });
    }
    if (body.id === undefined || !("method" in body)) return void res.writeHead(202).end();
    return json(res, 200, { jsonrpc: "2.0", id: body.id, result: answer(request) });
  });
  peers.push(peer);
  return peer;
}

const client = (peer: HttpPeer) => new Client(peer.url, { logger: silentLogger });

describe("Client against hostile 2025-era servers", () => {
  it("accepts 2025-06-18 when the server picks it, and tolerates a 405 on the GET stream", async () => {
    const peer = await legacyPeer(() => ({ tools: [] }));
    const mcp = client(peer);
    await mcp.listTools();
    expect(mcp.protocolVersion).toBe("2025-06-18");
    const list = peer.seen.find((seen) => seen.body.method === "tools/list");
    expect(list?.headers["mcp-protocol-version"]).toBe("2025-06-18");
    expect(list?.headers["mcp-session-id"]).toBeUndefined();
    await mcp.close();
  });

  it("refuses a version it does not speak, naming both sides' versions", async () => {
    const peer = await legacyPeer(() => ({}), {
      protocolVersion: "2024-11-05",
      capabilities: {},
      serverInfo: { name: "old", version: "1" },
    });
    const error = await client(peer)
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNegotiationError);
    expect((error as Error).message).toContain("2024-11-05");
    expect((error as Error).message).toContain("2025-11-25, 2025-06-18, 2025-03-26");
  });

  it("rejects an initialize result that is not one", async () => {
    const peer = await legacyPeer(() => ({}), { protocolVersion: "2025-11-25" });
    const error = await client(peer)
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNegotiationError);
    expect((error as Error).cause).toBeInstanceOf(ProtocolViolationError);
  });

  it("treats input_required on a session as the server mixing eras", async () => {
    const peer = await legacyPeer(() => ({ resultType: "input_required", inputRequests: {} }));
    const mcp = client(peer);
    await expect(mcp.callTool("t", {})).rejects.toThrow(
      /on a 2025-era session, where every result is complete/,
    );
    await mcp.close();
  });

  it("drops modern-only fields a 2025-era server sends, keeping the result shape of either era", async () => {
    const peer = await legacyPeer(() => ({
      content: [],
      resultType: "complete",
      ttlMs: 99,
      cacheScope: "public",
    }));
    const mcp = client(peer);
    const result = await mcp.callTool("t", {});
    expect(result).toEqual({ content: [], resultType: "complete" });
    await mcp.close();
  });

  it("says which versions each side offers when the server speaks neither era", async () => {
    const peer = await serveScripted((_request, res) => {
      res.writeHead(400, { "content-type": "text/html" }).end("<html>Bad Request</html>");
    });
    peers.push(peer);
    const error = await client(peer)
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNegotiationError);
    expect((error as Error).message).toMatch(
      /this client speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26.*answered server\/discover with HTTP 400 and initialize with HTTP 400/,
    );
  });

  it("says there is no MCP endpoint at a URL that answers 404 to both openings, not a version mismatch", async () => {
    const peer = await serveScripted((_request, res) => {
      res.writeHead(404, { "content-type": "text/html" }).end("<html>Not Found</html>");
    });
    peers.push(peer);
    const error = await client(peer)
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(404);
    expect((error as Error).message).toMatch(
      /^HTTP 404 Not Found from http:\/\/127\.0\.0\.1:\d+\/mcp; no MCP endpoint answers at this URL: check its path/,
    );
  });

  it("answers an unknown server request with -32601 and ping with an empty result, on the session", async () => {
    let held: ServerResponse | undefined;
    let callId: unknown;
    const answers: Record<string, unknown>[] = [];
    const streaming = await serveScripted((request, res, req) => {
      const { body } = request;
      if (req.method !== "POST") return void res.writeHead(405).end();
      if (body.method === "server/discover")
        return json(res, 404, {
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "Method not found" },
        });
      if (body.method === "initialize") {
        res.setHeader("mcp-session-id", "s-1");
        return json(res, 200, {
          jsonrpc: "2.0",
          id: body.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "h", version: "1" },
          },
        });
      }
      if (body.method === "tools/call") {
        callId = body.id;
        held = res;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          `data: ${JSON.stringify({ jsonrpc: "2.0", id: 9, method: "bogus/method", params: {} })}\n\n`,
        );
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" })}\n\n`);
        return;
      }
      if (!("method" in body)) {
        answers.push(body);
        res.writeHead(202).end();
        if (answers.length === 2) {
          held?.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [] } })}\n\n`);
        }
        return;
      }
      res.writeHead(202).end();
    });
    peers.push(streaming);
    const mcp = client(streaming);
    await mcp.callTool("t", {});
    expect(answers).toEqual(
      expect.arrayContaining([
        { jsonrpc: "2.0", id: 9, error: { code: -32601, message: "Method not found: bogus/method" } },
        { jsonrpc: "2.0", id: 10, result: {} },
      ]),
    );
    const posted = streaming.seen.filter((seen) => !("method" in seen.body) && "id" in seen.body);
    expect(posted.every((seen) => seen.headers["mcp-session-id"] === "s-1")).toBe(true);
    await mcp.close();
  });

  it("sends a list again over a connection reset before any answer, but never a tool call", async () => {
    const resets = new Set<string>();
    const peer = await serveScripted((request, res, req) => {
      const { body } = request;
      if (req.method !== "POST") return void res.writeHead(405).end();
      const method = String(body.method);
      if ((method === "tools/list" || method === "tools/call") && !resets.has(method)) {
        resets.add(method);
        return void req.socket.destroy();
      }
      if (method === "server/discover") {
        return json(res, 404, {
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "Method not found" },
        });
      }
      if (body.id === undefined) return void res.writeHead(202).end();
      const result =
        method === "initialize"
          ? {
              protocolVersion: "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "r", version: "1" },
            }
          : method === "tools/list"
            ? { tools: [] }
            : { content: [] };
      return json(res, 200, { jsonrpc: "2.0", id: body.id, result });
    });
    peers.push(peer);
    const mcp = client(peer);
    await mcp.listTools();
    await expect(mcp.callTool("t", {})).rejects.toThrow(ConnectionFailedError);
    const sent = (method: string) => peer.seen.filter((seen) => seen.body.method === method);
    expect(sent("tools/list")).toHaveLength(2);
    expect(sent("tools/call")).toHaveLength(1);
    await mcp.close();
  });

  it("resumes a response stream whose connection is reset after an event id, never sending the call twice", async () => {
    let callId: unknown;
    const peer = await serveScripted((request, res, req) => {
      const { body, headers } = request;
      if (req.method === "GET") {
        if (headers["last-event-id"] !== "e-1") return void res.writeHead(405).end();
        res.writeHead(200, { "content-type": "text/event-stream" });
        const answer = {
          jsonrpc: "2.0",
          id: callId,
          result: { content: [{ type: "text", text: "resumed" }] },
        };
        return void res.end(`id: e-2\ndata: ${JSON.stringify(answer)}\n\n`);
      }
      if (body.method === "server/discover") {
        return json(res, 404, {
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "Method not found" },
        });
      }
      if (body.method === "initialize") {
        res.setHeader("mcp-session-id", "s-9");
        return json(res, 200, {
          jsonrpc: "2.0",
          id: body.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "r", version: "1" },
          },
        });
      }
      if (body.method !== "tools/call") return void res.writeHead(202).end();
      callId = body.id;
      res.writeHead(200, { "content-type": "text/event-stream" });
      // The priming event: an id and empty data, then the connection dies before the answer.
      res.write("retry: 1\nid: e-1\ndata: \n\n", () => req.socket.destroy());
    });
    peers.push(peer);
    const mcp = client(peer);
    const result = await mcp.callTool("t", {});
    expect(result.content).toEqual([{ type: "text", text: "resumed" }]);
    expect(peer.seen.filter((seen) => seen.body.method === "tools/call")).toHaveLength(1);
    const resumed = peer.seen.find((seen) => seen.headers["last-event-id"] !== undefined);
    expect(resumed?.headers).toMatchObject({ "last-event-id": "e-1", "mcp-session-id": "s-9" });
    await mcp.close();
  });
});
