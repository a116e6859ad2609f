import { describe, expect, it } from "vitest";
import { ResponseTooLargeError } from "./http-errors.js";
import { readSseEvents } from "./sse-events.js";

function body(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

describe("readSseEvents", () => {
  it("keeps the last event id across events and reports retry as it is read", async () => {
    const retries: number[] = [];
    const events = [];
    const stream =
      'id: e-1\nretry: 250\ndata: \n\ndata: {"a":1}\n\nid: e-2\ndata: x\n\nretry: soon\ndata: y\n\n';
    for await (const event of readSseEvents(body(stream), { onRetry: (ms) => retries.push(ms) })) {
      events.push(event);
    }
    expect(events).toEqual([
      { event: "message", data: "", id: "e-1" },
      { event: "message", data: '{"a":1}', id: "e-1" },
      { event: "message", data: "x", id: "e-2" },
      { event: "message", data: "y", id: "e-2" },
    ]);
    // A retry that is not a number of milliseconds is ignored, as the SSE specification says.
    expect(retries).toEqual([250]);
  });

  it("gives 2026-07-28 events, which carry no id, none", async () => {
    const events = [];
    for await (const event of readSseEvents(body("event: message\ndata: {}\n\n"))) events.push(event);
    expect(events).toEqual([{ event: "message", data: "{}" }]);
  });

  it("reads an event split into many small chunks, and drops an event the stream ends inside", async () => {
    const encoder = new TextEncoder();
    const text = `data: ${"x".repeat(5000)}\n\ndata: unfinished`;
    let at = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= text.length) return controller.close();
        controller.enqueue(encoder.encode(text.slice(at, at + 7)));
        at += 7;
      },
    });
    const events = [];
    for await (const event of readSseEvents(chunked)) events.push(event);
    expect(events).toEqual([{ event: "message", data: "x".repeat(5000) }]);
  });

  it("stops at maxEventChars on a line that never ends, and cancels the body", async () => {
    let cancelled = false;
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new TextEncoder().encode(pulls === 1 ? "data: " : "y".repeat(1000)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const read = async () => {
      for await (const _ of readSseEvents(endless, { maxEventChars: 10_000, url: "http://x/mcp" }));
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toContain("maxEventChars");
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(30);
  });

  it("hands over the events finished before an oversized one", async () => {
    const events: unknown[] = [];
    const stream = body(`data: first\n\ndata: ${"z".repeat(200)}`);
    const error = await (async () => {
      for await (const event of readSseEvents(stream, { maxEventChars: 100 })) events.push(event);
    })().catch((e: unknown) => e);
    expect(events).toEqual([{ event: "message", data: "first" }]);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
  });
});
