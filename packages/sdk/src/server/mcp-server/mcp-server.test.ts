import { RequestStateSecurity } from "@roundtrip/sealing";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpError } from "../../protocol/errors.js";
import { inputRequired } from "../../protocol/input-required.js";
import type { JsonRpcNotification, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { silentLogger } from "../../protocol/logger.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { assertResultResponse } from "../../test-support/wire-schema.js";
import { McpServer } from "../index.js";
import { ask, resolver } from "./resolvers/resolvers.js";
import { accept } from "./test-support/answers.js";
import {
  connect,
  connectionsClosedAfterEach,
  resultOf as legResult,
  WIRES,
} from "./test-support/connections.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

let nextId = 1;

async function rawCall(
  mcp: McpServer,
  method: string,
  params: Record<string, unknown> = {},
  options: Parameters<McpServer["handleRequest"]>[1] = {},
): Promise<JsonRpcResponse> {
  const handled = await mcp.handleRequest(
    { jsonrpc: "2.0", id: nextId++, method, params: { _meta: ENVELOPE, ...params } },
    options,
  );
  return handled.message;
}

function resultOf(response: JsonRpcResponse): Record<string, unknown> {
  if ("error" in response) throw new Error(`expected a result, got ${JSON.stringify(response.error)}`);
  return response.result;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function askingTool(mcp: McpServer): void {
  mcp.tool("remember", {}, (_args, ctx) => ctx.requestState ?? inputRequired({ requestState: "kept" }));
}

describe("construction and sealing", () => {
  it("seals by default, and two default servers reject each other's state (33)", async () => {
    const first = new McpServer({ name: "same-name", version: "1.0.0" }, { logger: silentLogger });
    const second = new McpServer({ name: "same-name", version: "1.0.0" }, { logger: silentLogger });
    askingTool(first);
    askingTool(second);
    const token = resultOf(await rawCall(first, "tools/call", { name: "remember" })).requestState as string;
    expect(token).toMatch(/^v1\./);
    expect(
      resultOf(await rawCall(first, "tools/call", { name: "remember", requestState: token })).content,
    ).toEqual([{ type: "text", text: "kept" }]);
    expect(await rawCall(second, "tools/call", { name: "remember", requestState: token })).toMatchObject({
      error: {
        code: -32602,
        message: "Invalid or expired requestState",
        data: { reason: "invalid_request_state" },
      },
    });
  });

  it("refuses an explicit policy on a server with neither a name nor an audience, saying what to do (43)", () => {
    const keys = ["k".repeat(32)];
    for (const security of [new RequestStateSecurity({ keys }), RequestStateSecurity.ephemeral()]) {
      expect(() => new McpServer({}, { requestStateSecurity: security })).toThrow(
        /has no name.*Name the server .*or set an audience/,
      );
      expect(() => new McpServer({ name: "" }, { requestStateSecurity: security })).toThrow(TypeError);
    }
    expect(() => new McpServer()).not.toThrow();
    expect(
      () => new McpServer({}, { requestStateSecurity: new RequestStateSecurity({ keys, audience: "svc" }) }),
    ).not.toThrow();
    expect(
      () => new McpServer({ name: "billing" }, { requestStateSecurity: new RequestStateSecurity({ keys }) }),
    ).not.toThrow();
  });

  it("seals and completes a resolver tool on an unnamed default server (44)", async () => {
    const mcp = new McpServer();
    expect(mcp.name).toBe("mcp-server");
    const name = resolver(() => ask.elicit("Name?", z.object({ name: z.string() })));
    mcp.tool("hello", { resolve: { name } }, (_args, { name }) => `Hello ${name.name}`);
    const connection = await connect(mcp, "memory", { onElicit: () => accept({ name: "Ada" }) });
    try {
      expect(textOf(await connection.client.callTool("hello", {}))).toBe("Hello Ada");
      expect(String(legResult(connection.legs("tools/call")[0]?.response).requestState)).toMatch(/^v1\./);
    } finally {
      await connection.close();
    }
  });

  it("runs middleware added with use() after the boundary, so it sees plaintext both ways", async () => {
    const mcp = new McpServer({ name: "watched", version: "1.0.0" });
    askingTool(mcp);
    const seen: unknown[] = [];
    mcp.use(async (request, next) => {
      seen.push(request.params.requestState);
      const result = await next();
      seen.push(result.requestState);
      return result;
    });
    const token = resultOf(await rawCall(mcp, "tools/call", { name: "remember" })).requestState as string;
    await rawCall(mcp, "tools/call", { name: "remember", requestState: token });
    expect(seen).toEqual([undefined, "kept", "kept", undefined]);
  });
});

describe("registration and listing", () => {
  it("lists tools sorted by name with JSON Schema 2020-12 inputs and outputs", async () => {
    const mcp = new McpServer({ name: "catalog", version: "1.0.0" });
    mcp.tool(
      "zeta",
      { description: "Last", input: z.object({ n: z.number().describe("How many") }) },
      () => "z",
    );
    mcp.tool(
      "alpha",
      {
        title: "First",
        input: { type: "object", properties: { q: { type: "string", minLength: 1 } }, required: ["q"] },
        output: z.object({ hits: z.number() }),
        annotations: { readOnlyHint: true },
      },
      () => ({ hits: 1 }),
    );
    mcp.tool("middle", {}, () => "m");
    const response = await rawCall(mcp, "tools/list");
    assertResultResponse("tools/list", response);
    const { tools } = resultOf(response) as { tools: Record<string, unknown>[] };
    expect(tools.map((tool) => tool.name)).toEqual(["alpha", "middle", "zeta"]);
    expect(tools[0]).toEqual({
      name: "alpha",
      title: "First",
      inputSchema: { type: "object", properties: { q: { type: "string", minLength: 1 } }, required: ["q"] },
      outputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { hits: { type: "number" } },
        required: ["hits"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    });
    expect(tools[1]?.inputSchema).toEqual({ type: "object", properties: {} });
    expect(tools[2]).toMatchObject({
      description: "Last",
      inputSchema: {
        type: "object",
        properties: { n: { type: "number", description: "How many" } },
        required: ["n"],
      },
    });
  });

  it("lists prompts with their arguments, and resources apart from templates", async () => {
    const mcp = new McpServer({ name: "catalog", version: "1.0.0" });
    mcp.prompt(
      "briefing",
      {
        description: "A briefing",
        input: z.object({ topic: z.string().describe("What about"), tone: z.string().optional() }),
      },
      ({ topic }) => `Brief me on ${topic}`,
    );
    mcp.resource(
      "readme",
      { uri: "docs://readme", mimeType: "text/markdown", title: "Read me" },
      () => "# Hi",
    );
    mcp.resource("ticket", { uri: "tickets://{id}", description: "One ticket" }, ({ id }) => `ticket ${id}`);
    const prompts = await rawCall(mcp, "prompts/list");
    assertResultResponse("prompts/list", prompts);
    expect(resultOf(prompts).prompts).toEqual([
      {
        name: "briefing",
        description: "A briefing",
        arguments: [
          { name: "topic", description: "What about", required: true },
          { name: "tone", required: false },
        ],
      },
    ]);
    const resources = await rawCall(mcp, "resources/list");
    assertResultResponse("resources/list", resources);
    expect(resultOf(resources).resources).toEqual([
      { uri: "docs://readme", name: "readme", title: "Read me", mimeType: "text/markdown" },
    ]);
    const templates = await rawCall(mcp, "resources/templates/list");
    assertResultResponse("resources/templates/list", templates);
    expect(resultOf(templates).resourceTemplates).toEqual([
      { uriTemplate: "tickets://{id}", name: "ticket", description: "One ticket" },
    ]);
  });

  it("refuses unusable registrations with errors that say what to change", () => {
    const mcp = new McpServer({ name: "strict", version: "1.0.0" });
    expect(() => mcp.tool("scalar", { input: z.string() as never }, () => "x")).toThrow(
      /tool 'scalar' input schema must describe an object/,
    );
    expect(() =>
      mcp.tool(
        "remote",
        { input: { type: "object", properties: { a: { $ref: "https://schemas.example.com/a.json" } } } },
        () => "x",
      ),
    ).toThrow(
      /tool 'remote' input JSON Schema's \$ref "https:\/\/schemas.example.com\/a.json" does not resolve inside the schema, and references are never fetched; move the referenced schema under \$defs/,
    );
    expect(() =>
      mcp.tool(
        "dialect",
        { input: { $schema: "https://example.com/my-dialect", type: "object" } },
        () => "x",
      ),
    ).toThrow(
      /tool 'dialect' input JSON Schema declares \$schema "https:\/\/example.com\/my-dialect", a dialect/,
    );
    expect(() => mcp.tool("dates", { input: z.object({ at: z.date() }) }, () => "x")).toThrow(
      /cannot be expressed as JSON Schema/,
    );
    mcp.tool("once", {}, () => "x");
    expect(() => mcp.tool("once", {}, () => "y")).toThrow(/Tool 'once' is already registered/);
    expect(() => mcp.resource("search", { uri: "search://{?q}" }, () => "x")).toThrow(
      /beyond RFC 6570 level 2/,
    );
    expect(() => mcp.prompt("", {}, () => "x")).toThrow(/non-empty name/);
  });
});

describe.each(WIRES)("calls over %s", (wire) => {
  const connectTo = connectionsClosedAfterEach();

  function catalog(): McpServer {
    const mcp = new McpServer({ name: "calls", version: "1.0.0" }, { logger: silentLogger });
    mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
    mcp.tool(
      "search",
      { input: { type: "object", properties: { q: { type: "string", minLength: 2 } }, required: ["q"] } },
      (args) => `searching ${String(args.q)}`,
    );
    mcp.tool("blocks", {}, () => [
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    mcp.tool("stats", { output: z.object({ count: z.number() }) }, () => ({ count: 3 }));
    mcp.tool(
      "broken-stats",
      { output: z.object({ count: z.number() }) },
      () => ({ count: "three" }) as never,
    );
    mcp.prompt("briefing", { input: z.object({ topic: z.string() }) }, ({ topic }) => `Brief me on ${topic}`);
    mcp.resource("ticket", { uri: "tickets://{id}", mimeType: "text/plain" }, ({ id }) => `ticket ${id}`);
    mcp.resource(
      "logo",
      { uri: "assets://logo.png", mimeType: "image/png" },
      () => new Uint8Array([1, 2, 3]),
    );
    return mcp;
  }

  async function failure(promise: Promise<unknown>): Promise<McpError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  it("answers a bad argument with an isError result naming the field, without running the tool", async () => {
    const mcp = catalog();
    let ran = false;
    mcp.tool("guarded", { input: z.object({ n: z.number() }) }, () => {
      ran = true;
      return "ran";
    });
    const { client } = await connectTo(mcp, wire);
    const zod = await client.callTool("add", { a: 1, b: "2" });
    expect(zod.isError).toBe(true);
    expect(textOf(zod)).toBe(
      "Invalid arguments for tool 'add': field 'b': Invalid input: expected number, received string",
    );
    const raw = await client.callTool("search", { q: "x" });
    expect(raw.isError).toBe(true);
    expect(textOf(raw)).toMatch(/^Invalid arguments for tool 'search': field 'q': /);
    expect((await client.callTool("guarded", { n: "one" })).isError).toBe(true);
    expect(ran).toBe(false);
  });

  it("answers an unknown tool, an unknown prompt and a missing resource with -32602", async () => {
    const { client } = await connectTo(catalog(), wire);
    const tool = await failure(client.manualRounds.callTool("nope", {}));
    expect([tool.code, tool.message]).toEqual([
      -32602,
      "Unknown tool: 'nope'; tools/list names the tools this server offers",
    ]);
    const prompt = await failure(client.getPrompt("nope"));
    expect([prompt.code, prompt.message]).toEqual([
      -32602,
      "Unknown prompt: 'nope'; prompts/list names the prompts this server offers",
    ]);
    const missingArgument = await failure(client.getPrompt("briefing", {}));
    expect(missingArgument.message).toMatch(/^Invalid arguments for prompt 'briefing': field 'topic'/);
    const resource = await failure(client.readResource("docs://missing"));
    expect([resource.code, resource.message, resource.data]).toEqual([
      -32602,
      "Resource not found: docs://missing",
      { uri: "docs://missing" },
    ]);
  });

  it("turns plain return values into results", async () => {
    const { client } = await connectTo(catalog(), wire);
    expect((await client.callTool("add", { a: 2, b: 3 })).content).toEqual([{ type: "text", text: "5" }]);
    expect((await client.callTool("blocks", {})).content).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    const stats = await client.callTool("stats", {});
    expect(stats.structuredContent).toEqual({ count: 3 });
    expect(stats.content).toEqual([{ type: "text", text: '{"count":3}' }]);
    const broken = await client.callTool("broken-stats", {});
    expect(broken.isError).toBe(true);
    // The mismatch is the server author's bug, told in the log; the client only learns the call failed.
    expect(textOf(broken)).toMatch(/^Tool execution failed \(request .+\)$/);
    expect((await client.getPrompt("briefing", { topic: "MRTR" })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Brief me on MRTR" } },
    ]);
    expect((await client.readResource("tickets://42")).contents).toEqual([
      { uri: "tickets://42", mimeType: "text/plain", text: "ticket 42" },
    ]);
    expect((await client.readResource("assets://logo.png")).contents).toEqual([
      { uri: "assets://logo.png", mimeType: "image/png", blob: "AQID" },
    ]);
  });

  it("gives handlers this request's capabilities, progress and logging", async () => {
    const mcp = new McpServer({ name: "ctx", version: "1.0.0" });
    mcp.tool("report", {}, async (_args, ctx) => {
      await ctx.sendProgress(1, 2, "halfway");
      await ctx.log("info", { step: "done" });
      return `elicitation=${ctx.clientCapabilities.elicitation !== undefined} signal=${ctx.signal instanceof AbortSignal}`;
    });
    const progress: unknown[] = [];
    const logs: unknown[] = [];
    const { client } = await connectTo(mcp, wire, {
      onElicit: () => accept({}),
      logLevel: "info",
      onLog: (message) => logs.push(message.data),
    });
    const result = await client.callTool(
      "report",
      {},
      { onProgress: (p) => progress.push([p.progress, p.total, p.message]) },
    );
    expect(textOf(result)).toBe("elicitation=true signal=true");
    expect(progress).toEqual([[1, 2, "halfway"]]);
    expect(logs).toEqual([{ step: "done" }]);
  });
});

describe("handler context in memory", () => {
  it("exposes the validated auth and aborts the signal when the request is abandoned", async () => {
    const mcp = new McpServer({ name: "ctx", version: "1.0.0" });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    mcp.tool("who", {}, (_args, ctx) => `client=${ctx.auth?.clientId}`);
    mcp.tool("wait", {}, async (_args, ctx) => {
      started();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      return "aborted";
    });
    const auth = { token: "t", clientId: "c-1", scopes: [] };
    expect(resultOf(await rawCall(mcp, "tools/call", { name: "who" }, { auth })).content).toEqual([
      { type: "text", text: "client=c-1" },
    ]);
    const controller = new AbortController();
    const pending = rawCall(mcp, "tools/call", { name: "wait" }, { signal: controller.signal });
    await running;
    controller.abort();
    expect(resultOf(await pending).content).toEqual([{ type: "text", text: "aborted" }]);
  });
});

describe("list changes", () => {
  it("advertises listChanged and tells listening clients when a tool, prompt or resource is added or removed", async () => {
    const mcp = new McpServer({ name: "dynamic", version: "1.0.0" });
    mcp.tool("first", {}, () => "1");
    mcp.prompt("p", {}, () => "p");
    mcp.resource("r", { uri: "r://x" }, () => "r");
    const discover = resultOf(await rawCall(mcp, "server/discover"));
    expect(discover.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    });

    const received: JsonRpcNotification[] = [];
    let waiting: { count: number; resolve: () => void } | undefined;
    const arrived = (count: number) =>
      new Promise<void>((resolve) => {
        waiting = { count, resolve };
        if (received.length >= count) resolve();
      });
    const controller = new AbortController();
    const listening = rawCall(
      mcp,
      "subscriptions/listen",
      { notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } },
      {
        signal: controller.signal,
        notify: (message) => {
          received.push(message);
          if (waiting && received.length >= waiting.count) waiting.resolve();
        },
      },
    );
    await arrived(1);
    expect(received[0]?.method).toBe("notifications/subscriptions/acknowledged");

    const added = mcp.tool("second", {}, () => "2");
    await arrived(2);
    added.remove();
    await arrived(3);
    mcp.prompt("q", {}, () => "q").remove();
    await arrived(5);
    mcp.resource("s", { uri: "s://{id}" }, () => "s");
    await arrived(6);
    expect(received.slice(1).map((message) => message.method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
    ]);
    const tools = resultOf(await rawCall(mcp, "tools/list")).tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(["first"]);
    controller.abort();
    await listening;
    mcp.close();
  });
});
