import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ElicitParams } from "../../client/callbacks.js";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import type { ElicitResult } from "../../protocol/schemas/input-required.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { recordingLogger } from "../../test-support/in-process.js";
import { McpServer } from "../index.js";
import { connectV1 } from "../legacy/test-support/v1-peer.js";
import { ask, resolver } from "./resolvers/resolvers.js";
import { connectionsClosedAfterEach } from "./test-support/connections.js";

const PAGE = "https://auth.example.com/connect?flow=7";

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** `connect` sends the user to a page and reports the outcome; `strict` fails the call on a decline. */
function connectServer() {
  const mcp = new McpServer({ name: "pages", version: "1.0.0" }, { logger: recordingLogger() });
  const consent = resolver(() => ask.elicitUrl("Connect your calendar", PAGE), { onDecline: "outcome" });
  // A URL answer has no content: the page keeps what the user entered there.
  mcp.tool(
    "connect",
    { resolve: { consent } },
    (_args, { consent }) => `${consent.action} (${Object.keys(consent).join(", ")})`,
  );
  const required = resolver(() => ask.elicitUrl("Connect your calendar", new URL(PAGE)));
  mcp.tool("strict", { resolve: { required } }, (_args, { required }) => `went on after ${required.action}`);
  return mcp;
}

/** A user who answers every URL question with `action`, remembering what each asked. */
function userWho(action: ElicitResult["action"]) {
  const asked: ElicitParams[] = [];
  return {
    asked,
    onElicit: (params: ElicitParams): ElicitResult => {
      asked.push(params);
      return { action };
    },
  };
}

describe("ask.elicitUrl through the Roundtrip Client over HTTP", () => {
  const connect = connectionsClosedAfterEach();

  it("asks a URL-mode elicitation without an elicitationId and hands the accept to the tool", async () => {
    const user = userWho("accept");
    const { client } = await connect(connectServer(), "http", { onElicit: user.onElicit });
    expect(textOf(await client.callTool("connect", {}))).toBe("accept (action)");
    expect(user.asked).toEqual([{ mode: "url", message: "Connect your calendar", url: PAGE }]);
  });

  it("gives a resolver that takes outcomes the decline or cancel, and fails a strict one", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const { client } = await connect(connectServer(), "http", { onElicit: userWho(action).onElicit });
      expect(textOf(await client.callTool("connect", {}))).toBe(`${action} (action)`);
      const strict = await client.callTool("strict", {});
      expect(strict.isError).toBe(true);
      expect(textOf(strict)).toContain("could not resolve");
    }
    const { client } = await connect(connectServer(), "http", { onElicit: userWho("accept").onElicit });
    expect(textOf(await client.callTool("strict", {}))).toBe("went on after accept");
  });

  it("refuses a client that handles only forms with -32021, naming elicitation.url", async () => {
    const { client } = await connect(connectServer(), "http", {
      onElicit: userWho("accept").onElicit,
      elicitationModes: ["form"],
    });
    const error = await client.callTool("connect", {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect((error as McpError).data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
  });

  it("refuses to build a question whose URL a browser cannot open, or that has no message", () => {
    expect(() => ask.elicitUrl("Open it", "javascript:alert(1)")).toThrow(
      'ask.elicitUrl needs an absolute http(s) URL for the user to open, not "javascript:alert(1)"',
    );
    expect(() => ask.elicitUrl("Open it", "/relative/page")).toThrow(/absolute http\(s\) URL/);
    expect(() => ask.elicitUrl("", PAGE)).toThrow(/needs a message/);
  });
});

describe("ask.elicitUrl on a 2025-era session", () => {
  const running: RunningHttpServer[] = [];
  afterEach(async () => {
    for (const server of running.splice(0)) await server.close();
  });

  it("reaches the official v1 client with the elicitationId its wire requires", async () => {
    const http = await startHttpServer(connectServer().server);
    running.push(http);
    const peer = await connectV1(http.url, { elicitation: { url: {} } });
    const asked: Record<string, unknown>[] = [];
    peer.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: asked.length === 1 ? "accept" : "decline" };
    });
    const text = async (name: string) =>
      ((await peer.client.callTool({ name, arguments: {} })).content as { text: string }[])[0]?.text;
    expect(await text("connect")).toBe("accept (action)");
    expect(await text("connect")).toBe("decline (action)");
    expect(asked[0]).toEqual({
      mode: "url",
      message: "Connect your calendar",
      url: PAGE,
      elicitationId: expect.any(String),
    });
    await peer.close();
  });
});
