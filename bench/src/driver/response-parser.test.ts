import { describe, expect, it } from "vitest";
import { HttpParseError, ResponseParser } from "./response-parser.js";

describe("ResponseParser", () => {
  it("reads a sized JSON answer split across chunks", () => {
    const parser = new ResponseParser();
    const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}';
    expect(parser.push(Buffer.from(text.slice(0, 20)))).toBeUndefined();
    expect(parser.push(Buffer.from(text.slice(20, -3)))).toBeUndefined();
    expect(parser.push(Buffer.from(text.slice(-3)))).toEqual({
      reply: { status: 200, contentType: "application/json", body: '{"a":1}' },
      keepAlive: true,
    });
  });

  it("reads a chunked SSE answer and a request to close", () => {
    const parser = new ResponseParser();
    const body = "event: message\ndata: {}\n\n";
    const text =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
      `${(6).toString(16)}\r\n${body.slice(0, 6)}\r\n${(body.length - 6).toString(16)}\r\n${body.slice(6)}\r\n0\r\n\r\n`;
    expect(parser.push(Buffer.from(text))).toEqual({
      reply: { status: 200, contentType: "text/event-stream", body },
      keepAlive: false,
    });
  });

  it("refuses an answer it cannot frame", () => {
    expect(() => new ResponseParser().push(Buffer.from("HTTP/1.1 200 OK\r\n\r\n"))).toThrow(HttpParseError);
    expect(() => new ResponseParser().push(Buffer.from("SSH-2.0\r\n\r\n"))).toThrow(HttpParseError);
  });
});
