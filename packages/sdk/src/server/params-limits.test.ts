import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../protocol/errors.js";
import { silentLogger } from "../protocol/logger.js";
import { errorOf, type RunningHttpServer, resultOf, send, startHttpServer } from "../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../test-support/messages.js";
import { McpServer } from "./index.js";

/** `{"a":{"a":...1...}}` as JSON text, `depth` objects deep: a hostile peer writes it, no serializer could. */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** A tools/call whose `field` holds the given raw JSON text, with the headers a correct client sends. */
function rawCall(url: string, params: Record<string, unknown>, field: string, rawValue: string) {
  const request = rpcRequest("tools/call", { ...params, [field]: "RAW" });
  const body = JSON.stringify(request).replace('"RAW"', rawValue);
  return send(url, { method: "POST", headers: mcpHeaders(request), body }, "tools/call");
}

const ran: string[] = [];
let defaults: RunningHttpServer;
let tight: RunningHttpServer;

function serverWith(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const mcp = new McpServer({ name: "limits-test", version: "0.0.0" }, { logger: silentLogger, ...options });
  mcp.tool("echo", {}, (args) => {
    ran.push("echo");
    return JSON.stringify(args).length.toString();
  });
  mcp.tool("confirm", { once: true }, () => {
    ran.push("confirm");
    return "done";
  });
  return mcp;
}

beforeAll(async () => {
  // HTTP refuses such bodies before parsing them (maxBodyDepth); opened up here, as stdio is, to show
  // that the params limits hold by themselves.
  defaults = await startHttpServer(serverWith().server, { maxBodyDepth: 10_000 });
  tight = await startHttpServer(serverWith({ paramsLimits: { maxDepth: 4, maxBytes: 100 } }).server);
});
afterAll(async () => {
  await defaults.close();
  await tight.close();
});

async function refusalOf(url: string, params: Record<string, unknown>, field: string, rawValue: string) {
  const before = ran.length;
  const reply = await rawCall(url, params, field, rawValue);
  expect(ran.length).toBe(before);
  return { status: reply.status, error: errorOf(reply) };
}

describe("params limits", () => {
  it("refuses arguments nested 5,000 deep with -32602 naming the limit, before the tool runs", async () => {
    const refusal = await refusalOf(defaults.url, { name: "echo" }, "arguments", nestedJson(5_000));
    expect(refusal.status).toBe(400);
    expect(refusal.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: "Invalid params: arguments nests deeper than this server's limit of 64 levels (maxDepth)",
    });
  });

  it("refuses inputResponses nested 5,000 deep before any round is digested", async () => {
    const refusal = await refusalOf(
      defaults.url,
      { name: "confirm", arguments: {} },
      "inputResponses",
      `{"confirm":${nestedJson(5_000)}}`,
    );
    expect(refusal.error.code).toBe(ErrorCode.InvalidParams);
    expect(refusal.error.message).toMatch(/inputResponses nests deeper than .* 64 levels/);
  });

  it("serves arguments at the default depth", async () => {
    const reply = await rawCall(defaults.url, { name: "echo" }, "arguments", nestedJson(64));
    expect(resultOf(reply).isError).toBeUndefined();
  });

  it("applies configured limits on depth and size", async () => {
    expect((await refusalOf(tight.url, { name: "echo" }, "arguments", nestedJson(5))).error.message).toMatch(
      /limit of 4 levels \(maxDepth\)/,
    );
    expect(
      (await refusalOf(tight.url, { name: "echo" }, "arguments", JSON.stringify({ text: "x".repeat(200) })))
        .error.message,
    ).toMatch(/arguments is 211 bytes, beyond this server's limit of 100 bytes \(maxBytes\)/);
    const reply = await rawCall(tight.url, { name: "echo" }, "arguments", nestedJson(4));
    expect(resultOf(reply).isError).toBeUndefined();
  });
});
