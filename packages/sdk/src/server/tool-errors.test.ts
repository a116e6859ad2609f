import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../protocol/logger.js";
import { post, type RunningHttpServer, resultOf, startHttpServer } from "../test-support/http.js";
import { rpcRequest } from "../test-support/messages.js";
import { McpServer } from "./index.js";
import { ToolError } from "./tool-error.js";

const SECRET = "postgres://roundtrip:s3cret-pw@db.internal/ledger";

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A sink keeping every line with its level, like an operator's log pipeline would. */
function recordingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function serving(lines: Line[], exposeErrors?: boolean): McpServer {
  const mcp = new McpServer(
    { name: "errors-test", version: "0.0.0" },
    { logger: recordingLogger(lines), ...(exposeErrors === undefined ? {} : { exposeErrors }) },
  );
  mcp.tool("connect", {}, () => {
    throw new Error(`cannot reach ${SECRET}`);
  });
  mcp.tool("deploy", {}, () => {
    throw new ToolError("The deploy window is closed until 18:00 UTC");
  });
  return mcp;
}

const hiddenLines: Line[] = [];
const exposedLines: Line[] = [];
let hidden: RunningHttpServer;
let exposed: RunningHttpServer;

beforeAll(async () => {
  hidden = await startHttpServer(serving(hiddenLines).server);
  exposed = await startHttpServer(serving(exposedLines, true).server);
});
afterAll(async () => {
  await hidden.close();
  await exposed.close();
});

async function call(url: string, name: string, id: number): Promise<Record<string, unknown>> {
  return resultOf(await post(url, rpcRequest("tools/call", { name, arguments: {} }, { id })));
}

describe("a tool handler that throws", () => {
  it("answers the client a generic isError text with the request id, and logs the detail without a stack", async () => {
    const result = await call(hidden.url, "connect", 4711);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Tool execution failed (request 4711)" }],
    });
    expect(JSON.stringify(result)).not.toContain("s3cret");
    const warning = hiddenLines.find((line) => line.message === "tool handler threw");
    expect(warning).toMatchObject({
      level: "warn",
      fields: { requestId: 4711, err: { message: `cannot reach ${SECRET}` } },
    });
    const aboveDebug = hiddenLines.filter((line) => line.level !== "debug");
    expect(JSON.stringify(aboveDebug)).not.toMatch(/\bat .*tool-errors\.test/);
    expect(aboveDebug.some((line) => JSON.stringify(line.fields).includes('"stack"'))).toBe(false);
    const debug = hiddenLines.find((line) => line.level === "debug" && line.fields.requestId === 4711);
    expect(String(debug?.fields.stack)).toContain("tool-errors.test");
  });

  it("passes a ToolError's message, written for the client, as it is", async () => {
    expect(await call(hidden.url, "deploy", 8)).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "The deploy window is closed until 18:00 UTC" }],
    });
  });

  it("passes any exception's text when the server opts in with exposeErrors", async () => {
    expect(await call(exposed.url, "connect", 9)).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `cannot reach ${SECRET}` }],
    });
  });
});
