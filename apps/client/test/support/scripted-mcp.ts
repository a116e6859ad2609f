import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One JSON-RPC request the scripted server received. */
export interface ScriptedCall {
  method: string;
  params: Record<string, unknown>;
}

/** What the script answers a call with: a result, or a JSON-RPC error. */
export type ScriptedAnswer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string } };

export interface ScriptedMcp {
  url: string;
  /** Every tools/call, in arrival order. */
  calls: ScriptedCall[];
  close(): Promise<void>;
}

/**
 * An MCP 2026-07-28 server written by hand, speaking raw JSON-RPC over HTTP: it says of itself and
 * answers tools/call with whatever the test scripts, including what no well-behaved server would send
 * (control sequences in its name, its messages and its results). Only what the CLI needs is served:
 * server/discover and tools/call.
 */
export async function startScriptedMcp(options: {
  serverInfo: { name: string; title?: string; version: string };
  /** Answers the n-th tools/call (0 first); a promise holds the answer back until it settles. */
  answer: (call: ScriptedCall, index: number) => ScriptedAnswer | Promise<ScriptedAnswer>;
  /** What tools/list answers, in one page. */
  tools?: Record<string, unknown>[];
}): Promise<ScriptedMcp> {
  const calls: ScriptedCall[] = [];
  const reply = (res: ServerResponse, id: unknown, body: ScriptedAnswer) =>
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id, ...body }));
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (req.method !== "POST" || text === "") {
      res.writeHead(405).end();
      return;
    }
    const message = JSON.parse(text) as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const meta = { "io.modelcontextprotocol/serverInfo": options.serverInfo };
    if (message.method === "server/discover") {
      reply(res, message.id, {
        result: {
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: "private",
          _meta: meta,
        },
      });
      return;
    }
    if (message.method === "tools/call") {
      const call = { method: message.method, params: message.params ?? {} };
      calls.push(call);
      const answer = await options.answer(call, calls.length - 1);
      reply(res, message.id, "result" in answer ? { result: { ...answer.result, _meta: meta } } : answer);
      return;
    }
    if (message.method === "tools/list" && options.tools) {
      reply(res, message.id, { result: { resultType: "complete", tools: options.tools, _meta: meta } });
      return;
    }
    reply(res, message.id, { error: { code: -32601, message: `no ${message.method} here` } });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A round that asks one URL-mode question under `key`. */
export function askingUrl(key: string, message: string, url: string, requestState = "s1"): ScriptedAnswer {
  return {
    result: {
      resultType: "input_required",
      inputRequests: { [key]: { method: "elicitation/create", params: { mode: "url", message, url } } },
      requestState,
    },
  };
}

/** A round that asks `request` (an elicitation, a sampling request) under `key`. */
export function asking(key: string, request: Record<string, unknown>): ScriptedAnswer {
  return { result: { resultType: "input_required", inputRequests: { [key]: request }, requestState: "s" } };
}

/** A round with nothing to answer: the server is still waiting on something. */
export function stateOnly(requestState: string): ScriptedAnswer {
  return { result: { resultType: "input_required", requestState } };
}

export function completeText(text: string): ScriptedAnswer {
  return { result: { resultType: "complete", content: [{ type: "text", text }] } };
}
