import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../protocol/logger.js";
import type { ElicitParams, InputRequestContext } from "./callbacks.js";
import { Client, type ClientOptions } from "./client.js";
import { VersionNegotiationError } from "./errors.js";
import { type OfficialV1Http, startOfficialV1Http } from "./test-support/official-v1-http.js";

/**
 * The Client against the official TypeScript SDK v1 server (1.32.2) on its sessionful Streamable
 * HTTP transport: the 2025-era peer most hosts ship.
 */

const servers: OfficialV1Http[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function official(options: { resumable?: boolean } = {}): Promise<OfficialV1Http> {
  const server = await startOfficialV1Http(options);
  servers.push(server);
  return server;
}

function client(server: OfficialV1Http, options: ClientOptions = {}): Client {
  const made = new Client(server.url, {
    info: { name: "legacy-test", version: "1" },
    logger: silentLogger,
    ...options,
  });
  clients.push(made);
  return made;
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/** A promise and the function that settles it: waits for a callback without sleeping. */
function signal<T>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

const rpcs = (server: OfficialV1Http) =>
  server.seen.filter((seen) => seen.method === "POST").map((s) => s.rpc);

describe("Client and the official v1 server over sessionful Streamable HTTP", () => {
  it("negotiates: server/discover is refused, so it opens a 2025-11-25 session with initialize", async () => {
    const server = await official();
    const mcp = client(server, {
      onElicit: () => ({ action: "decline" }),
      onListRoots: () => ({ roots: [] }),
    });
    const described = await mcp.connect();
    expect(mcp.era).toBe("legacy");
    expect(mcp.protocolVersion).toBe("2025-11-25");
    expect(described).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25" });
    expect(mcp.serverInfo).toEqual({ name: "official-v1", version: "1.32.2" });
    expect(mcp.instructions).toBe("A 2025-era server.");
    expect(mcp.serverCapabilities?.tools).toBeDefined();
    expect(rpcs(server).slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    const initialize = server.seen.find((seen) => seen.rpc === "initialize");
    expect(initialize?.headers["mcp-session-id"]).toBeUndefined();
    const [sessionId] = server.sessionIds();
    await mcp.listTools();
    const list = server.seen.find((seen) => seen.rpc === "tools/list");
    expect(list?.headers["mcp-session-id"]).toBe(sessionId);
    expect(list?.headers["mcp-protocol-version"]).toBe("2025-11-25");
    expect(list?.headers["mcp-method"]).toBeUndefined();
  });

  it("declares the callbacks' capabilities in initialize, and sends no 2026-07-28 envelope after it", async () => {
    const server = await official();
    const mcp = client(server, {
      era: "legacy",
      onElicit: () => ({ action: "decline" }),
      onSample: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
      onListRoots: () => ({ roots: [] }),
    });
    await mcp.connect();
    expect(rpcs(server)).not.toContain("server/discover");
    const initialize = server.seen.find((seen) => seen.rpc === "initialize");
    expect(initialize?.body?.params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: "legacy-test", version: "1" },
    });
    const result = await mcp.callTool("add", { a: 2, b: 3 });
    expect(result.resultType).toBe("complete");
    expect(text(result)).toBe("5");
    const call = server.seen.find((seen) => seen.rpc === "tools/call");
    expect(call?.body?.params).toEqual({ name: "add", arguments: { a: 2, b: 3 } });
  });

  it("skips the probe on prior knowledge, in either direction", async () => {
    const server = await official();
    const legacy = client(server, { knownEra: "legacy" });
    await legacy.listTools();
    expect(legacy.era).toBe("legacy");
    // Told "modern" wrongly: the first request is refused as session-less, and the session opens then.
    const modern = client(server, { knownEra: "modern" });
    const { tools } = await modern.listTools();
    expect(tools.map((tool) => tool.name)).toContain("add");
    expect(modern.era).toBe("legacy");
    expect(rpcs(server)).not.toContain("server/discover");
  });

  it("pinned to 2026-07-28, it says that the server is a 2025-era one and what to do", async () => {
    const server = await official();
    const error = await client(server, { era: "modern" })
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNegotiationError);
    expect((error as Error).message).toMatch(/pinned to era "modern".*2025-era server; use era "auto"/);
    expect(rpcs(server)).not.toContain("initialize");
  });

  it("answers an elicitation sent on the call's response stream with onElicit", async () => {
    const server = await official();
    const contexts: InputRequestContext[] = [];
    const mcp = client(server, {
      onElicit: (params: ElicitParams, context) => {
        contexts.push(context);
        expect(params.message).toBe("What is your name?");
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    expect(text(await mcp.callTool("greet", {}))).toBe("Hello, Ada");
    expect(contexts[0]).toMatchObject({ method: "tools/call", target: "greet", round: 1 });
    expect(contexts[0]?.server).toEqual({ name: "official-v1", version: "1.32.2" });
    // The answer went back as a POSTed JSON-RPC response on the session.
    expect(rpcs(server)).toContain("response");
  });

  it("stops the call's clock while onElicit answers: a person may take longer than requestTimeoutMs", async () => {
    const server = await official();
    // The bound is far from what the exchange itself takes; the person's time is made up on a fake
    // clock, jumped three bounds ahead while onElicit runs: a clock still counting would fire. The
    // jump stays under the official server's own 60 s wait for the answer, which shares the clock.
    const timeoutMs = 10_000;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldAdvanceTime: true });
    try {
      const mcp = client(server, {
        requestTimeoutMs: timeoutMs,
        onElicit: async () => {
          await vi.advanceTimersByTimeAsync(3 * timeoutMs);
          return { action: "accept", content: { name: "Ada" } };
        },
      });
      expect(text(await mcp.callTool("greet", {}))).toBe("Hello, Ada");
    } finally {
      vi.useRealTimers();
    }
  });

  it("runs a two-round flow: a form, then sampling, inside one tool call", async () => {
    const server = await official();
    const mcp = client(server, {
      onElicit: () => ({ action: "accept", content: { city: "Lisbon" } }),
      onSample: (params) => {
        expect(params.messages[0]?.content).toEqual({ type: "text", text: "Plan a day in Lisbon" });
        return { role: "assistant", content: { type: "text", text: "tiles and tarts" }, model: "m" };
      },
    });
    expect(text(await mcp.callTool("plan", {}))).toBe("Lisbon: tiles and tarts");
  });

  it("answers roots/list sent on the GET stream, unrelated to the call", async () => {
    const server = await official();
    const contexts: InputRequestContext[] = [];
    const mcp = client(server, {
      onListRoots: (context) => {
        contexts.push(context);
        return { roots: [{ uri: "file:///work" }, { uri: "file:///home" }] };
      },
    });
    expect(text(await mcp.callTool("where", {}))).toBe("file:///work,file:///home");
    expect(contexts[0]?.method).toBe("");
    expect(server.seen.some((seen) => seen.method === "GET")).toBe(true);
  });

  it("refuses a request for a capability it did not declare; the server's tool reports the refusal", async () => {
    const server = await official();
    const mcp = client(server, { onElicit: () => ({ action: "accept", content: { city: "Oslo" } }) });
    const result = await mcp.callTool("plan", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("-32601");
  });

  it("handles URL elicitation and notifications/elicitation/complete", async () => {
    const server = await official();
    const completed = signal<string>();
    const mcp = client(server, {
      onElicit: (params) => {
        expect(params.mode).toBe("url");
        return { action: "accept" };
      },
      onElicitationComplete: completed.settle,
    });
    expect(text(await mcp.callTool("url-login", {}))).toBe("accept");
    expect(await completed.promise).toBe("login-1");
  });

  it("delivers progress on the call's stream and log messages on the GET stream, at the level it set", async () => {
    const server = await official();
    const logged = signal<unknown>();
    const progress: number[] = [];
    const mcp = client(server, { logLevel: "info", onLog: (message) => logged.settle(message.data) });
    await mcp.callTool("chatty", {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1]);
    expect(await logged.promise).toBe("careful");
    expect(rpcs(server)).toContain("logging/setLevel");
  });

  it("hears tools/list_changed on the GET stream", async () => {
    const server = await official();
    const changed = signal<string>();
    const mcp = client(server, { onListChanged: changed.settle });
    await mcp.connect();
    expect(text(await mcp.callTool("grow", {}))).toBe("grown-1");
    expect(await changed.promise).toBe("tools");
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toContain("grown-1");
  });

  it("ends the session with DELETE on close", async () => {
    const server = await official();
    const mcp = client(server);
    await mcp.connect();
    const [sessionId] = server.sessionIds();
    await mcp.close();
    const deleted = server.seen.find((seen) => seen.method === "DELETE");
    expect(deleted?.headers["mcp-session-id"]).toBe(sessionId);
    expect(server.sessionIds()).toEqual([]);
  });

  it("opens a new session once when the server answers 404 for an expired one", async () => {
    const server = await official();
    const mcp = client(server);
    await mcp.connect();
    const [first] = server.sessionIds();
    server.expire(first as string);
    expect(text(await mcp.callTool("add", { a: 1, b: 1 }))).toBe("2");
    expect(rpcs(server).filter((rpc) => rpc === "initialize")).toHaveLength(2);
    expect(server.sessionIds()).not.toContain(first);
  });

  it("resumes a response stream cut before its answer with GET and Last-Event-ID", async () => {
    const server = await official({ resumable: true });
    const mcp = client(server);
    expect(text(await mcp.callTool("cut", {}))).toBe("after the cut");
    const resumed = server.seen.find((seen) => seen.method === "GET" && seen.headers["last-event-id"]);
    expect(resumed?.headers["last-event-id"]).toMatch(/_\d+$/);
  });

  it("drives the manual loop on a session: results are complete; round fields are refused", async () => {
    const server = await official();
    const mcp = client(server, { onElicit: () => ({ action: "accept", content: { name: "Lin" } }) });
    const result = await mcp.manualRounds.callTool("greet", {}, { allowInputRequired: true });
    expect(result).toMatchObject({ resultType: "complete" });
    await expect(
      mcp.manualRounds.callTool("greet", {}, { allowInputRequired: true, requestState: "x" }),
    ).rejects.toThrow(/2025 era .*no input_required rounds/);
  });
});
