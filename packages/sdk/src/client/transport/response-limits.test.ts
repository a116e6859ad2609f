import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../client.js";
import { discoverResult, type HttpPeer, json, serveScripted } from "../test-support/http-peer.js";
import { HttpClientTransport } from "./http-client.js";
import { ResponseTooLargeError } from "./http-errors.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function hostile(
  answer: (res: ServerResponse, id: unknown) => void,
): Promise<HttpPeer & { closed: Promise<void> }> {
  let closed: () => void = () => {};
  const closedPromise = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const peer = await serveScripted(({ body }, res) => {
    if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
    res.on("close", closed);
    answer(res, body.id);
  });
  peers.push(peer);
  return { ...peer, closed: closedPromise };
}

/** Writes chunks for as long as the client reads them, as a server that never finishes its answer would. */
function endlessly(res: ServerResponse, chunk: string): void {
  const write = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once("drain", write);
  };
  write();
}

describe("response limits", () => {
  it("stops reading a JSON body at maxResponseBytes and closes the connection", async () => {
    const peer = await hostile((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"jsonrpc":"2.0","id":2,"result":{"content":"');
      endlessly(res, "a".repeat(16 * 1024));
    });
    const client = new Client(new HttpClientTransport(peer.url, { maxResponseBytes: 64 * 1024 }));
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toContain("maxResponseBytes");
    expect((error as ResponseTooLargeError).limit).toBe(64 * 1024);
    await peer.closed;
  });

  it("refuses a body whose Content-Length is over the limit without reading it", async () => {
    const peer = await hostile((res, id) => {
      const text = JSON.stringify({ jsonrpc: "2.0", id, result: { content: [], pad: "p".repeat(4096) } });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
    const client = new Client(new HttpClientTransport(peer.url, { maxResponseBytes: 1024 }));
    await expect(client.callTool("t")).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("stops at maxEventChars on an SSE event that never ends", async () => {
    const peer = await hostile((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: message\ndata: ");
      endlessly(res, "b".repeat(16 * 1024));
    });
    const client = new Client(new HttpClientTransport(peer.url, { maxEventChars: 64 * 1024 }));
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toContain("maxEventChars");
    await peer.closed;
  });

  it("reads a stream longer than both limits when each of its events is under them", async () => {
    const peer = await hostile((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 50; i++) res.write(`: keep-alive ${"k".repeat(100)}\n\n`);
      res.end(
        `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", content: [] } })}\n\n`,
      );
    });
    const client = new Client(
      new HttpClientTransport(peer.url, { maxEventChars: 1024, maxResponseBytes: 1024 }),
    );
    await expect(client.callTool("t")).resolves.toMatchObject({ content: [] });
  });

  it("says which limit is wrong when one is not a positive whole number", () => {
    expect(() => new HttpClientTransport("http://127.0.0.1/mcp", { maxResponseBytes: 0 })).toThrow(
      /maxResponseBytes must be a whole number above 0/,
    );
  });
});
