import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../client.js";
import { RequestTimeoutError } from "../errors.js";
import { discoverResult, type HttpPeer, json, serveScripted } from "../test-support/http-peer.js";
import { HttpClientTransport } from "./http-client.js";
import { ResponseTooLargeError } from "./http-errors.js";

const MIB = 1024 * 1024;

const peers: HttpPeer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

/** A server that answers discovery and hands every other request to `answer`. */
async function peer(answer: (res: ServerResponse, id: unknown) => void): Promise<HttpPeer> {
  const scripted = await serveScripted(({ body }, res) => {
    if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
    answer(res, body.id);
  });
  peers.push(scripted);
  return scripted;
}

/**
 * Writes `bytes` bytes of filler in chunks, as a server that streams a huge answer would, with no
 * Content-Length (the client must count what it reads, not trust a header), then `end`: a client
 * without the limit gets a whole, valid answer instead of a hang.
 */
function pad(res: ServerResponse, bytes: number, filler: string, end: string): void {
  const chunk = filler.repeat(MIB);
  let left = bytes;
  const write = () => {
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.slice(0, left);
      left -= part.length;
      if (!res.write(part)) return void res.once("drain", write);
    }
    if (!res.destroyed) res.end(end);
  };
  write();
}

/** Lets the event loop turn until `done` says so, for at most `turns` turns: no clock involved. */
async function turnsUntil(done: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

// Past 16 MiB by a margin, so that the framing around the filler does not decide the outcome.
const OVER_DEFAULT = 16 * MIB + 64 * 1024;

describe("the limits a client applies when given no options", () => {
  it("caps a response body at 16 MiB by default", async () => {
    const server = await peer((res, id) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"pad":"`);
      pad(res, OVER_DEFAULT, "a", '"}}');
    });
    const error = await new Client(new HttpClientTransport(server.url))
      .callTool("t")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).option).toBe("maxResponseBytes");
    expect((error as ResponseTooLargeError).limit).toBe(16 * MIB);
  });

  it("caps one SSE event at 16 MiB characters by default", async () => {
    const server = await peer((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"pad":"`,
      );
      pad(res, OVER_DEFAULT, "b", '"}}\n\n');
    });
    const error = await new Client(new HttpClientTransport(server.url))
      .callTool("t")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).option).toBe("maxEventChars");
    expect((error as ResponseTooLargeError).limit).toBe(16 * MIB);
  });

  it("cancels a request the server has not answered after 60 s by default, and not before", async () => {
    let arrived: () => void = () => {};
    const called = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // The call is never answered: only the client's own clock can end it.
    const server = await peer(() => arrived());
    const client = new Client(new HttpClientTransport(server.url));
    await client.connect();
    // Only the clocks the timeout runs on are faked; sockets and setImmediate stay real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let settled: unknown;
    void client.callTool("t").then(
      (result) => {
        settled = result;
      },
      (error: unknown) => {
        settled = error;
      },
    );
    await called;
    await vi.advanceTimersByTimeAsync(59_999);
    await turnsUntil(() => settled !== undefined, 20);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await turnsUntil(() => settled !== undefined);
    expect(settled).toBeInstanceOf(RequestTimeoutError);
    expect(settled).toMatchObject({ method: "tools/call", timeoutMs: 60_000, option: "requestTimeoutMs" });
  });
});
