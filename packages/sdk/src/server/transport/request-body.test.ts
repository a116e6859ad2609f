import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { HttpError } from "./http-errors.js";
import { decodeJson, readBody, withinLimit } from "./request-body.js";

function incoming(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

describe("readBody", () => {
  it("joins the chunks of a body within the limit", async () => {
    const req = incoming();
    const body = readBody(req, 10);
    req.write("abc");
    req.end("def");
    expect((await body).toString()).toBe("abcdef");
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    await expect(readBody(incoming({ "content-length": "11" }), 10)).rejects.toMatchObject({
      status: 413,
      rpcCode: -32600,
    });
  });

  it("refuses a body as soon as it grows over the limit, and drains the rest", async () => {
    const req = incoming();
    const body = readBody(req, 4);
    req.write("abc");
    req.write("def");
    const error = await body.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 413 });
    expect(req.listenerCount("data")).toBe(0);
    expect(req.isPaused()).toBe(false);
  });

  it("rejects when the client closes before the end", async () => {
    const req = incoming();
    const body = readBody(req, 10);
    req.write("abc");
    req.destroy();
    await expect(body).rejects.toThrow(/closed the request/);
  });
});

describe("withinLimit", () => {
  it("holds a pre-read buffer or string to the limit in bytes, and passes parsed values through", () => {
    expect(withinLimit("1234", 4)).toBe("1234");
    expect(() => withinLimit("\u00e9\u00e9\u00e9", 4)).toThrow(HttpError);
    expect(() => withinLimit(Buffer.alloc(5), 4)).toThrow(HttpError);
    const parsed = { jsonrpc: "2.0" };
    expect(withinLimit(parsed, 1)).toBe(parsed);
  });
});

describe("decodeJson", () => {
  it("parses bytes and text, and takes an already parsed value as it is", () => {
    expect(decodeJson(Buffer.from('{"a":1}'), 8)).toEqual({ a: 1 });
    expect(decodeJson("[1]", 8)).toEqual([1]);
    const parsed = { a: 1 };
    expect(decodeJson(parsed, 8)).toBe(parsed);
  });

  it("answers invalid or empty JSON with a parse error", () => {
    for (const body of ["{", "", Buffer.alloc(0)]) {
      let thrown: unknown;
      try {
        decodeJson(body, 8);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(McpError);
      expect((thrown as McpError).code).toBe(-32700);
    }
  });
});

describe("decodeJson: nesting", () => {
  const depthOf = (body: unknown, maxDepth: number) => {
    try {
      decodeJson(body, maxDepth);
      return "parsed";
    } catch (error) {
      return (error as HttpError).status === 400 ? "too deep" : String(error);
    }
  };

  it("counts the levels of arrays and objects, the message being level 1", () => {
    expect(depthOf('{"a":[{"b":[]}]}', 4)).toBe("parsed");
    expect(depthOf('{"a":[{"b":[]}]}', 3)).toBe("too deep");
    expect(depthOf(Buffer.from("[[[]],[[]]]"), 3)).toBe("parsed");
  });

  it("leaves brackets and escaped quotes inside strings out of the count", () => {
    expect(depthOf('{"a":"[[[{{{\\"[[[","b":"\\\\"}', 1)).toBe("parsed");
    expect(depthOf(Buffer.from('{"é[":"ü{{{","x":[1]}'), 2)).toBe("parsed");
    expect(depthOf(Buffer.from('{"é[":"ü{{{","x":[[1]]}'), 2)).toBe("too deep");
  });

  it("holds a value a framework already parsed to the same depth", () => {
    expect(depthOf({ a: [{ b: [] }] }, 4)).toBe("parsed");
    expect(depthOf({ a: [{ b: [] }] }, 3)).toBe("too deep");
  });
});
