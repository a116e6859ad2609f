import { describe, expect, it } from "vitest";
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
});
