import { describe, expect, it } from "vitest";
import { parseReply, ReplyError, toolText } from "./reply.js";

const result = { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "hi" }] } };

describe("reading a reply", () => {
  it("reads a JSON body", () => {
    const answer = parseReply({
      status: 200,
      contentType: "application/json; charset=utf-8",
      body: JSON.stringify(result),
    });
    expect(answer).toEqual({ kind: "result", id: 4, result: result.result });
  });

  it("reads the last event of an SSE body, after notifications and comments", () => {
    const body = [
      ": keep-alive",
      "",
      `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: {} })}`,
      "",
      `event: message\ndata: ${JSON.stringify(result)}`,
      "",
      "",
    ].join("\n");
    const answer = parseReply({ status: 200, contentType: "text/event-stream", body });
    expect(answer.kind === "result" && toolText(answer.result)).toBe("hi");
  });

  it("reads an error, and refuses what is not JSON-RPC", () => {
    const error = { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } };
    expect(parseReply({ status: 400, contentType: "application/json", body: JSON.stringify(error) })).toEqual(
      {
        kind: "error",
        id: 1,
        code: -32602,
        message: "bad",
      },
    );
    expect(() => parseReply({ status: 502, contentType: "text/html", body: "<h1>" })).toThrow(ReplyError);
    expect(() => parseReply({ status: 200, contentType: "application/json", body: "{}" })).toThrow(
      ReplyError,
    );
  });
});
