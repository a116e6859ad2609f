import { describe, expect, it } from "vitest";
import { acceptNegotiator, answersAsEvent, parseAccept } from "./accept-negotiation.js";

describe("parseAccept", () => {
  it.each([
    [undefined, { json: true, sse: true }],
    ["", { json: true, sse: true }],
    ["*/*", { json: true, sse: true }],
    ["application/json, text/event-stream", { json: true, sse: true }],
    ["application/json", { json: true, sse: false }],
    ["application/*", { json: true, sse: false }],
    ["text/event-stream", { json: false, sse: true }],
    ["TEXT/*", { json: false, sse: true }],
    ["text/html", { json: false, sse: false }],
    ["application/json;q=0, text/event-stream", { json: false, sse: true }],
    ["application/json; q = 0.000, */*;q=0", { json: false, sse: false }],
    ["application/json;q=0.5", { json: true, sse: false }],
  ])("reads %j as %j", (header, expected) => {
    expect(parseAccept(header)).toEqual(expected);
  });

  it("returns frozen verdicts, so a remembered one cannot be changed by a caller", () => {
    expect(Object.isFrozen(parseAccept("application/json"))).toBe(true);
    expect(Object.isFrozen(parseAccept(undefined))).toBe(true);
  });
});

describe("acceptNegotiator", () => {
  it("gives the same verdict object for a repeated header, and a new one when the header changes", () => {
    const negotiate = acceptNegotiator();
    const first = negotiate("application/json, text/event-stream");
    expect(negotiate("application/json, text/event-stream")).toBe(first);
    expect(negotiate("text/event-stream")).toEqual({ json: false, sse: true });
    expect(negotiate("application/json, text/event-stream")).toEqual(first);
    expect(negotiate(undefined)).toEqual({ json: true, sse: true });
  });

  it("keeps each negotiator's memory to itself", () => {
    const one = acceptNegotiator();
    const other = acceptNegotiator();
    expect(one("application/json")).toEqual({ json: true, sse: false });
    expect(other("text/event-stream")).toEqual({ json: false, sse: true });
    expect(one("application/json")).toEqual({ json: true, sse: false });
    expect(other("text/event-stream")).toEqual({ json: false, sse: true });
  });
});

describe("answersAsEvent", () => {
  it("streams a lone response only to a client without JSON, and only a 200", () => {
    const sseOnly = parseAccept("text/event-stream");
    expect(answersAsEvent(sseOnly, 200)).toBe(true);
    expect(answersAsEvent(sseOnly, 400)).toBe(false);
    expect(answersAsEvent(sseOnly, 404)).toBe(false);
    expect(answersAsEvent(parseAccept("application/json, text/event-stream"), 200)).toBe(false);
  });
});
