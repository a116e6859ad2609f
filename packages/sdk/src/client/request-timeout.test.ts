import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "./client.js";
import { RequestTimeoutError } from "./errors.js";
import { discoverResult, json } from "./test-support/http-peer.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/**
 * A raw HTTP server that answers what `answer` says and leaves every other POST open, forever. It
 * records, by method, each request that the client closed before it was answered.
 */
async function silentHttpServer(answer: (body: { id: unknown; method: string }) => unknown | undefined) {
  const closed: string[] = [];
  let onClose: () => void = () => {};
  const http = createServer((req: IncomingMessage, res) => {
    let text = "";
    let answered = false;
    res.on("close", () => {
      if (answered) return;
      closed.push((JSON.parse(text || "{}") as { method?: string }).method ?? "(body cut off)");
      onClose();
    });
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      const reply = answer(JSON.parse(text) as { id: unknown; method: string });
      if (reply === undefined) return;
      answered = true;
      json(res, 200, reply);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const { port } = http.address() as AddressInfo;
  const closing = new Promise<void>((resolve) => {
    onClose = resolve;
  });
  return { url: `http://127.0.0.1:${port}/mcp`, closed, closing };
}

describe("request timeouts", () => {
  it("fails connect() to a silent HTTP server and closes the probe's request", async () => {
    const server = await silentHttpServer(() => undefined);
    const error = await new Client(server.url, { connectTimeoutMs: 500 }).connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: "server/discover", option: "connectTimeoutMs" });
    await server.closing;
    expect(server.closed).toEqual(["server/discover"]);
  });

  it("bounds each request by the client's requestTimeoutMs, and cancels it", async () => {
    const server = await silentHttpServer((body) =>
      body.method === "server/discover" ? discoverResult(body.id) : undefined,
    );
    const client = new Client(server.url, { requestTimeoutMs: 300 });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: "tools/call", option: "requestTimeoutMs", timeoutMs: 300 });
    await server.closing;
    expect(server.closed).toEqual(["tools/call"]);
  });

  it("lets a call set its own bound over a client without one", async () => {
    const server = await silentHttpServer((body) =>
      body.method === "server/discover" ? discoverResult(body.id) : undefined,
    );
    const client = new Client(server.url, { requestTimeoutMs: 0 });
    await expect(client.listTools({ requestTimeoutMs: 120 })).rejects.toMatchObject({
      name: "RequestTimeoutError",
      timeoutMs: 120,
    });
  });

  it("does not count the time an auth provider takes to sign in after a 401", async () => {
    const server = createServer(async (req, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      if (req.headers.authorization !== "Bearer signed-in") {
        return void res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      }
      json(res, 200, discoverResult((JSON.parse(text) as { id: unknown }).id));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    // The bound is far from what the two requests take on a busy machine; the user's time in the
    // browser is made up on a fake clock, jumped three bounds ahead while signing in: a clock still
    // counting would fire.
    const connectTimeoutMs = 10_000;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldAdvanceTime: true });
    try {
      let signedIn = false;
      const auth = {
        authorization: async () => (signedIn ? "Bearer signed-in" : undefined),
        handleChallenge: async () => {
          await vi.advanceTimersByTimeAsync(3 * connectTimeoutMs);
          signedIn = true;
          return true;
        },
      };
      const { port } = server.address() as AddressInfo;
      const client = new Client(`http://127.0.0.1:${port}/mcp`, { connectTimeoutMs, http: { auth } });
      await expect(client.connect()).resolves.toMatchObject({ era: "modern" });
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ["requestTimeoutMs", { requestTimeoutMs: -1 }],
    ["connectTimeoutMs", { connectTimeoutMs: Number.NaN }],
  ])("refuses a %s that is not a number of milliseconds", (option, options) => {
    expect(() => new Client("http://127.0.0.1/mcp", options)).toThrow(
      new RegExp(`${option} must be a number of milliseconds`),
    );
  });
});
