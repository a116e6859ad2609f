import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpError } from "../../protocol/errors.js";
import { elicitForm, inputRequired, isInputRequiredResult } from "../../protocol/input-required.js";
import type { JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { silentLogger } from "../../protocol/logger.js";
import type { InputRequiredResult } from "../../protocol/schemas/input-required.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { assertResultResponse } from "../../test-support/wire-schema.js";
import { McpServer, Server } from "../index.js";
import { toElicitationSchema } from "./elicitation-schema.js";
import { acceptedContent, inputResponse } from "./input-responses.js";
import { accept, scriptedUser } from "./test-support/answers.js";
import { connectionsClosedAfterEach, resultOf, WIRES } from "./test-support/connections.js";
import { openSecurity, plaintextOf } from "./test-support/open-codec.js";

const Name = z.object({ name: z.string() });
const Confirm = z.object({ confirm: z.boolean() });

const NAME_REQUEST = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
};

/** The same question three ways: a tool, a prompt and a resource template, each driving its own rounds. */
function greeterServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const mcp = new McpServer({ name: "greeter", version: "1.0.0" }, options);
  const ask = () =>
    inputRequired({
      inputRequests: { name: elicitForm("What is your name?", toElicitationSchema(Name)) },
      requestState: "r1",
    });
  mcp.tool("greet", {}, (_args, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return ask();
    return `Hello, ${answer.name}! (state=${ctx.requestState})`;
  });
  mcp.prompt("greeting", { input: z.object({ tone: z.string() }) }, ({ tone }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return ask();
    return `Write a ${tone} greeting for ${answer.name} (state=${ctx.requestState})`;
  });
  mcp.resource("card", { uri: "cards://{kind}", mimeType: "text/plain" }, ({ kind }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "name", Name);
    if (!answer) return ask();
    return `${kind} card for ${answer.name} (state=${ctx.requestState})`;
  });
  return mcp;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe.each(WIRES)("hand-built rounds over %s", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("returns the InputRequiredResult exactly as built, its plaintext state sealed (45)", async () => {
    const { client, legs } = await connect(greeterServer({ requestStateSecurity: openSecurity() }), wire, {
      onElicit: () => accept({ name: "Alice" }),
    });
    const round = (await client.manualRounds.callTool(
      "greet",
      {},
      { allowInputRequired: true },
    )) as InputRequiredResult;
    expect(round.resultType).toBe("input_required");
    expect(round.inputRequests).toEqual({ name: NAME_REQUEST });
    expect(round.requestState).not.toBe("r1");
    expect(plaintextOf(round.requestState as string)).toBe("r1");
    assertResultResponse("tools/call", legs("tools/call")[0]?.response);
  });

  it("completes on the retry and the handler reads both the answer and its state (46)", async () => {
    const user = scriptedUser(() => accept({ name: "Alice" }));
    const { client, legs } = await connect(greeterServer(), wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("greet", {}))).toBe("Hello, Alice! (state=r1)");
    const prompt = await client.getPrompt("greeting", { tone: "warm" });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Write a warm greeting for Alice (state=r1)" } },
    ]);
    const resource = await client.readResource("cards://birthday");
    expect(resource.contents).toEqual([
      { uri: "cards://birthday", mimeType: "text/plain", text: "birthday card for Alice (state=r1)" },
    ]);
    expect(user.keys).toEqual(["name", "name", "name"]);
    for (const method of ["tools/call", "prompts/get", "resources/read"]) {
      const [first, second] = legs(method);
      expect((first?.request.params?.requestState as string | undefined) ?? "").toBe("");
      expect(second?.request.params?.requestState).toBe(resultOf(first?.response).requestState);
      for (const leg of legs(method)) assertResultResponse(method, leg.response);
    }
  });

  it("refuses accepted content that does not fit the form: a tool error for tools, -32602 otherwise", async () => {
    const { client } = await connect(greeterServer(), wire, { onElicit: () => accept({ name: 7 }) });
    const result = await client.callTool("greet", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `inputResponses["name"] does not match the requested schema (field 'name': Invalid input: expected string, received number); ask again`,
    );
    const error = (await client
      .getPrompt("greeting", { tone: "dry" })
      .catch((caught: unknown) => caught)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`inputResponses["name"] does not match the requested schema`);
  });

  it("lets a deploy tool keep its own step id in requestState and branch on it", async () => {
    const mcp = new McpServer({ name: "deployer", version: "1.0.0" });
    const deployed: string[] = [];
    mcp.tool("deploy", { input: z.object({ env: z.enum(["staging", "prod"]) }) }, ({ env }, ctx) => {
      // Hand-built state gets no question pinning from the SDK: the step id says which question was answered.
      const [step, id] = (ctx.requestState ?? "start").split(":");
      if (step === "start") {
        const deployment = `d-${env}-1`;
        return inputRequired({
          inputRequests: {
            confirm: elicitForm(`Deploy ${deployment} to ${env}?`, toElicitationSchema(Confirm)),
          },
          requestState: `confirm:${deployment}`,
        });
      }
      const view = inputResponse(ctx.inputResponses, "confirm");
      if (step !== "confirm" || !id)
        return { content: [{ type: "text", text: "Unknown step; call deploy again" }], isError: true };
      if (view.kind === "declined" || view.kind === "cancelled") return `Deployment ${id} ${view.kind}`;
      const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
      if (!answer)
        return inputRequired({
          inputRequests: { confirm: elicitForm(`Deploy ${id} to ${env}?`, toElicitationSchema(Confirm)) },
          requestState: `confirm:${id}`,
        });
      if (!answer.confirm) return `Deployment ${id} not confirmed`;
      deployed.push(id);
      return `Deployed ${id}`;
    });
    const user = scriptedUser(() => accept({ confirm: true }));
    const { client } = await connect(mcp, wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("deploy", { env: "prod" }))).toBe("Deployed d-prod-1");
    expect(user.asked).toEqual(["Deploy d-prod-1 to prod?"]);
    expect(deployed).toEqual(["d-prod-1"]);
    const declining = await connect(mcp, wire, { onElicit: () => ({ action: "decline" }) });
    expect(textOf(await declining.client.callTool("deploy", { env: "staging" }))).toBe(
      "Deployment d-staging-1 declined",
    );
  });
});

describe("the low-level Server next to McpServer (45)", () => {
  it("sends hand-built state verbatim without a boundary and accepts the plaintext echo", async () => {
    const server = new Server({ name: "raw", version: "1.0.0" });
    server.onCallTool((_ctx, params) => {
      const answer = acceptedContent(params.inputResponses, "name", Name);
      if (!answer)
        return inputRequired({
          inputRequests: { name: elicitForm("What is your name?", toElicitationSchema(Name)) },
          requestState: "r1",
        });
      return { content: [{ type: "text", text: `Hello, ${answer.name}! (state=${params.requestState})` }] };
    });
    const call = async (extra: Record<string, unknown>) => {
      const handled = await server.handleRequest({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: envelope({ elicitation: {} }), name: "greet", ...extra },
      });
      return (handled.message as { result: Record<string, unknown> }).result;
    };
    const first = await call({});
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: { name: NAME_REQUEST },
      requestState: "r1",
    });
    const second = await call({ requestState: "r1", inputResponses: { name: accept({ name: "Alice" }) } });
    expect(second.content).toEqual([{ type: "text", text: "Hello, Alice! (state=r1)" }]);
  });

  it("McpServer seals by default: its plaintext echoed back is the frozen error and the handler never runs", async () => {
    let runs = 0;
    const mcp = new McpServer({ name: "sealed", version: "1.0.0" }, { logger: silentLogger });
    mcp.tool("greet", {}, (_args, ctx) => {
      runs += 1;
      return ctx.requestState ?? inputRequired({ requestState: "r1" });
    });
    const first = await rawCall(mcp, "tools/call", { name: "greet" });
    expect(String(resultOf(first).requestState)).toMatch(/^v1\./);
    const echoed = await rawCall(mcp, "tools/call", { name: "greet", requestState: "r1" });
    expect(echoed).toMatchObject({
      error: {
        code: -32602,
        message: "Invalid or expired requestState",
        data: { reason: "invalid_request_state" },
      },
    });
    expect(runs).toBe(1);
  });
});

function envelope(capabilities: Record<string, unknown>, version = "2026-07-28"): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

async function rawCall(
  mcp: McpServer,
  method: string,
  params: Record<string, unknown>,
  version?: string,
): Promise<JsonRpcResponse> {
  const handled = await mcp.handleRequest({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { _meta: envelope({ elicitation: {} }, version), ...params },
  });
  return handled.message;
}

describe("requests of an earlier protocol revision (47, adapted)", () => {
  it.each([
    ["tools/call", { name: "greet" }],
    ["prompts/get", { name: "greeting", arguments: { tone: "warm" } }],
    ["resources/read", { uri: "cards://birthday" }],
  ])(
    "%s declaring 2025-11-25 is refused with -32022 before any handler could return input_required",
    async (method, params) => {
      const mcp = greeterServer();
      let reached = false;
      mcp.use(async (_request, next) => {
        reached = true;
        return next();
      });
      const response = await rawCall(mcp, method, params, "2025-11-25");
      expect(response).toMatchObject({
        error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2025-11-25" } },
      });
      expect(reached).toBe(false);
    },
  );
});

describe("a static resource cannot ask (48, run-time guard)", () => {
  it("answers a static resource that returns an InputRequiredResult with an error saying what to do", async () => {
    const mcp = new McpServer({ name: "docs", version: "1.0.0" });
    const handler = () => inputRequired({ requestState: "x" });
    mcp.resource("readme", { uri: "docs://readme" }, handler as unknown as () => string);
    const response = await rawCall(mcp, "resources/read", { uri: "docs://readme" });
    expect(response).toMatchObject({
      error: {
        code: -32603,
        message:
          "Resource 'readme' is static, and static resources cannot return InputRequiredResult; only resource templates take part in multi round-trip requests. Register it with a URI template, or return its contents",
      },
    });
    expect(isInputRequiredResult((response as { result?: unknown }).result)).toBe(false);
  });
});
