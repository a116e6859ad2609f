import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { Server } from "../../server/index.js";
import { assertClientRequest } from "../../test-support/wire-schema.js";
import type { AuthChallenge, ClientAuthProvider } from "../auth-provider.js";
import type { ElicitParams } from "../callbacks.js";
import { Client } from "../client.js";
import {
  discoverResult,
  type HttpPeer,
  json,
  serveOverHttp,
  serveScripted,
} from "../test-support/http-peer.js";
import { FakeClock } from "../test-support/recording.js";
import { AWKWARD_STATE, roundsServer } from "../test-support/rounds-server.js";
import { HttpClientTransport, HttpStatusError } from "./http-client.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function track(peer: Promise<HttpPeer>): Promise<HttpPeer> {
  const started = await peer;
  peers.push(started);
  return started;
}

const answerName = (name: string) => async (params: ElicitParams) =>
  params.mode === "url" ? { action: "accept" as const } : { action: "accept" as const, content: { name } };

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("HttpClientTransport against createNodeHandler", () => {
  it("runs the rounds of a tool, a prompt and a resource template over real HTTP", async () => {
    const peer = await track(serveOverHttp(roundsServer().server));
    const client = new Client(peer.url, { onElicit: answerName("Ada"), clock: new FakeClock() });
    expect(textOf(await client.callTool("greet"))).toBe("Hello, Ada!");
    expect((await client.getPrompt("p")).messages).toHaveLength(1);
    expect((await client.readResource("memo://9")).contents[0]).toMatchObject({ text: "memo://9 for Ada" });
    const retry = peer.seen.filter((seen) => seen.body.method === "tools/call")[1];
    expect(retry?.body.params).toMatchObject({ requestState: AWKWARD_STATE });
    for (const seen of peer.seen) assertClientRequest(seen.body);
  });

  it("sends the version, method and name headers on every POST", async () => {
    const peer = await track(serveOverHttp(roundsServer().server));
    const client = new Client(peer.url, { onElicit: answerName("Ada") });
    await client.listTools();
    await client.callTool("greet");
    for (const { headers, body } of peer.seen) {
      expect(headers["mcp-protocol-version"]).toBe("2026-07-28");
      expect(headers["mcp-method"]).toBe(body.method);
      expect(headers.accept).toBe("application/json, text/event-stream");
      expect(headers["content-type"]).toBe("application/json");
    }
    const calls = peer.seen.filter((seen) => seen.body.method === "tools/call");
    expect(calls.map((seen) => seen.headers["mcp-name"])).toEqual(["greet", "greet"]);
  });

  it("encodes a name that is not safe ASCII in the base64 sentinel, and the server accepts it", async () => {
    const peer = await track(serveOverHttp(roundsServer().server));
    const client = new Client(peer.url, { onElicit: answerName("Ada") });
    const uri = "memo://café 1";
    const result = await client.readResource(uri);
    expect(result.contents[0]).toMatchObject({ uri });
    const read = peer.seen.find((seen) => seen.body.method === "resources/read");
    expect(read?.headers["mcp-name"]).toBe(`=?base64?${Buffer.from(uri).toString("base64")}?=`);
  });

  it("mirrors x-mcp-header arguments into Mcp-Param headers once the tool is listed", async () => {
    const peer = await track(serveOverHttp(roundsServer().server));
    const client = new Client(peer.url);
    await client.listTools();
    const result = await client.callTool("forecast", { region: "  Zürich ", days: 3, note: "n" });
    expect(textOf(result)).toBe("forecast for   Zürich  (http)");
    const call = peer.seen.find((seen) => seen.body.method === "tools/call");
    expect(call?.headers["mcp-param-region"]).toBe(
      `=?base64?${Buffer.from("  Zürich ").toString("base64")}?=`,
    );
    expect(call?.headers["mcp-param-days"]).toBe("3");
    expect(Object.keys(call?.headers ?? {}).filter((name) => name.startsWith("mcp-param-"))).toHaveLength(2);
  });

  it("lists tools again and retries once when a tool call is refused for a missing Mcp-Param header", async () => {
    const peer = await track(serveOverHttp(roundsServer().server));
    const client = new Client(peer.url);
    const result = await client.callTool("forecast", { region: "north" });
    expect(textOf(result)).toBe("forecast for north (http)");
    expect(peer.seen.map((seen) => seen.body.method)).toEqual([
      "server/discover",
      "tools/call",
      "tools/list",
      "tools/call",
    ]);
    expect(peer.seen[3]?.headers["mcp-param-region"]).toBe("north");
  });

  it("routes progress notifications of an SSE response to the call's onProgress", async () => {
    const server = new Server({ name: "progress", version: "1" });
    server.onCallTool(async (ctx) => {
      await ctx.sendProgress(1, 2, "half");
      await ctx.sendProgress(2, 2);
      await ctx.log("info", { step: "done" });
      return { content: [{ type: "text", text: "ok" }] };
    });
    const peer = await track(serveOverHttp(server));
    const logs: unknown[] = [];
    const client = new Client(peer.url, { logLevel: "debug", onLog: (message) => logs.push(message.data) });
    const progress: number[] = [];
    const result = await client.callTool("t", {}, { onProgress: (p) => progress.push(p.progress) });
    expect(textOf(result)).toBe("ok");
    expect(progress).toEqual([1, 2]);
    expect(logs).toEqual([{ step: "done" }]);
    const meta = peer.seen.at(-1)?.body.params as { _meta: Record<string, unknown> };
    expect(typeof meta._meta.progressToken).toBe("string");
  });
});

describe("HttpClientTransport against a scripted server", () => {
  it("retries once with a version both speak when the first request is refused with -32022", async () => {
    let refused = false;
    const peer = await track(
      serveScripted(({ body }, res) => {
        if (!refused) {
          refused = true;
          return json(res, 400, {
            jsonrpc: "2.0",
            id: body.id,
            error: {
              code: -32022,
              message: "Unsupported protocol version",
              data: { supported: ["2026-07-28"], requested: "x" },
            },
          });
        }
        json(res, 200, discoverResult(body.id));
      }),
    );
    const client = new Client(peer.url);
    await client.connect();
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(peer.seen).toHaveLength(2);
    expect(peer.seen[1]?.body.id).not.toBe(peer.seen[0]?.body.id);
    expect(peer.seen[1]?.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(client.serverInfo).toEqual({ name: "scripted", version: "1" });
  });

  it("fails with the server's versions when none is shared, and retries only once", async () => {
    const peer = await track(
      serveScripted(({ body }, res) =>
        json(res, 400, {
          jsonrpc: "2.0",
          id: body.id,
          error: {
            code: -32022,
            message: "Unsupported protocol version",
            data: { supported: ["2027-01-01"] },
          },
        }),
      ),
    );
    await expect(new Client(peer.url).connect()).rejects.toThrow(/2027-01-01.*no version in common/);
    expect(peer.seen).toHaveLength(1);
  });

  it("reads an SSE response that has keep-alives and CRLF line ends", async () => {
    const peer = await track(
      serveScripted(({ body }, res) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": keep-alive\r\n\r\n");
        const done = { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", content: [] } };
        res.end(`event: message\r\ndata: ${JSON.stringify(done)}\r\n\r\n`);
      }),
    );
    await expect(new Client(peer.url).callTool("t")).resolves.toMatchObject({ content: [] });
  });

  it("re-sends a request once, with a new id, when the stream ends without an answer", async () => {
    let broken = false;
    const peer = await track(
      serveScripted(({ body }, res) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        if (!broken) {
          broken = true;
          res.writeHead(200, { "content-type": "text/event-stream" });
          return void res.end(": bye\n\n");
        }
        json(res, 200, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", content: [] } });
      }),
    );
    await new Client(peer.url).callTool("t");
    const calls = peer.seen.filter((seen) => seen.body.method === "tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0]?.body.id).not.toBe(calls[1]?.body.id);
  });

  it("re-sends a 2026-07-28 request once when the connection is reset before any answer", async () => {
    let reset = false;
    const peer = await track(
      serveScripted(({ body }, res, req) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        if (!reset) {
          reset = true;
          return void req.socket.destroy();
        }
        json(res, 200, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", content: [] } });
      }),
    );
    await new Client(peer.url).callTool("t");
    expect(peer.seen.filter((seen) => seen.body.method === "tools/call")).toHaveLength(2);
  });

  it("re-sends a 2026-07-28 request once when its response stream is reset midway, and no more", async () => {
    const peer = await track(
      serveScripted(({ body }, res, req) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": working\n\n", () => req.socket.destroy());
      }),
    );
    const error = await new Client(peer.url).callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    const calls = peer.seen.filter((seen) => seen.body.method === "tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0]?.body.id).not.toBe(calls[1]?.body.id);
  });

  it("raises HttpStatusError with the status and headers for a refusal without a JSON-RPC body", async () => {
    const peer = await track(
      serveScripted((_seen, res) => {
        res.writeHead(401, { "www-authenticate": 'Bearer resource_metadata="x"' }).end("no");
      }),
    );
    const error = await new Client(peer.url).connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(401);
    expect((error as HttpStatusError).headers.get("www-authenticate")).toContain("resource_metadata");
    expect((error as Error).message).toContain("Authorization");
  });

  it("raises McpError for a JSON-RPC error sent with a 4xx status", async () => {
    const peer = await track(
      serveScripted(({ body }, res) =>
        json(res, 404, { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } }),
      ),
    );
    const transport = new HttpClientTransport(peer.url);
    await expect(transport.request({ jsonrpc: "2.0", id: 7, method: "server/discover" })).resolves.toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32601, message: "Method not found" },
    });
    // A Client pinned to 2026-07-28 reads the refusal as a 2025-era server and says what to do.
    const error = await new Client(peer.url, { era: "modern" }).connect().catch((e: unknown) => e);
    expect((error as Error).cause).toBeInstanceOf(McpError);
    expect((error as Error).message).toContain('use era "auto"');
  });

  it("sends configured headers such as Authorization on every POST", async () => {
    const peer = await track(serveScripted(({ body }, res) => json(res, 200, discoverResult(body.id))));
    const transport = new HttpClientTransport(peer.url, { headers: () => ({ authorization: "Bearer t" }) });
    await new Client(transport).connect();
    expect(peer.seen[0]?.headers.authorization).toBe("Bearer t");
  });

  it("closes the request when the call is aborted", async () => {
    let closed: () => void = () => {};
    const closedPromise = new Promise<void>((resolve) => {
      closed = resolve;
    });
    let arrived: () => void = () => {};
    const arrivedPromise = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const peer = await track(
      serveScripted(({ body }, res) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": waiting\n\n");
        res.on("close", closed);
        arrived();
      }),
    );
    const controller = new AbortController();
    const client = new Client(peer.url);
    await client.connect();
    const call = client.callTool("slow", {}, { signal: controller.signal });
    await arrivedPromise;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await closedPromise;
  });
});

describe("HttpClientTransport with an auth provider", () => {
  interface Recorded {
    asked: string[];
    challenges: AuthChallenge[];
  }

  /** A provider that hands out `token-<n>`, the n-th after n-1 challenges, and answers challenges with `verdict`. */
  function recordingProvider(verdict: (challenge: AuthChallenge) => boolean): ClientAuthProvider & Recorded {
    const recorded: Recorded = { asked: [], challenges: [] };
    return {
      ...recorded,
      async authorization(resource) {
        recorded.asked.push(resource.href);
        return `Bearer token-${recorded.challenges.length + 1}`;
      },
      async handleChallenge(challenge) {
        recorded.challenges.push(challenge);
        return verdict(challenge);
      },
    };
  }

  /** Answers 401 (or what `refuse` says) until the request carries `accepted`. */
  function guarded(accepted: string, refuse: () => { status: number; challenge: string }) {
    return serveScripted(({ body, headers }, res) => {
      if (headers.authorization !== `Bearer ${accepted}`) {
        const { status, challenge } = refuse();
        res.setHeader("www-authenticate", challenge);
        return json(res, status, { error: "refused" });
      }
      if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
      return json(res, 200, { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: [] } });
    });
  }

  it("asks for the header before each POST, keeps the other configured headers, and overrides their Authorization", async () => {
    const peer = await track(guarded("token-1", () => ({ status: 401, challenge: "Bearer" })));
    const auth = recordingProvider(() => true);
    const transport = new HttpClientTransport(peer.url, {
      auth,
      headers: { authorization: "Bearer static", "x-tenant": "t1" },
    });
    await new Client(transport).listTools();
    expect(auth.asked).toEqual([peer.url, peer.url]);
    expect(peer.seen.map((seen) => seen.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-1"]);
    expect(peer.seen.every((seen) => seen.headers["x-tenant"] === "t1")).toBe(true);
  });

  it("hands a 401 to the provider and re-sends the same request when it has new credentials", async () => {
    const challenge = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';
    const peer = await track(guarded("token-2", () => ({ status: 401, challenge })));
    const auth = recordingProvider(() => true);
    await new Client(peer.url, { http: { auth } }).connect();
    expect(auth.challenges).toHaveLength(1);
    expect(auth.challenges[0]).toMatchObject({ status: 401, wwwAuthenticate: challenge, attempt: 1 });
    expect(auth.challenges[0]?.resource.href).toBe(peer.url);
    expect(peer.seen).toHaveLength(2);
    expect(peer.seen[1]?.body).toEqual(peer.seen[0]?.body);
    expect(peer.seen[1]?.headers.authorization).toBe("Bearer token-2");
  });

  it("hands 403 insufficient_scope over too, counting the attempts of one request", async () => {
    const peer = await track(
      guarded("token-3", () => ({
        status: 403,
        challenge: 'Bearer error="insufficient_scope", scope="a b"',
      })),
    );
    const auth = recordingProvider(() => true);
    await new Client(peer.url, { http: { auth } }).connect();
    expect(auth.challenges.map((challenge) => [challenge.status, challenge.attempt])).toEqual([
      [403, 1],
      [403, 2],
    ]);
  });

  it("surfaces a 403 that is not about scope without consulting the provider", async () => {
    const peer = await track(
      guarded("never", () => ({ status: 403, challenge: 'Bearer error="invalid_token"' })),
    );
    const auth = recordingProvider(() => true);
    const error = await new Client(peer.url, { http: { auth } }).connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(403);
    expect(auth.challenges).toHaveLength(0);
  });

  it("surfaces the refusal as HttpStatusError when the provider gives up", async () => {
    const peer = await track(guarded("never", () => ({ status: 401, challenge: "Bearer" })));
    const auth = recordingProvider((challenge) => challenge.attempt < 3);
    const error = await new Client(peer.url, { http: { auth } }).connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(401);
    expect((error as Error).message).toContain("auth provider");
    expect(auth.challenges.map((challenge) => challenge.attempt)).toEqual([1, 2, 3]);
    expect(peer.seen).toHaveLength(3);
  });

  it("lets an error thrown by the provider reach the caller", async () => {
    const peer = await track(guarded("never", () => ({ status: 401, challenge: "Bearer" })));
    const auth = recordingProvider(() => {
      throw new Error("discovery failed: fix the server");
    });
    await expect(new Client(peer.url, { http: { auth } }).connect()).rejects.toThrow("discovery failed");
  });
});
