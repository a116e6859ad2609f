import { describe, expect, it } from "vitest";
import { sseData } from "./sse-events.js";

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function all(body: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(body)) out.push(data);
  return out;
}

describe("sseData", () => {
  it("yields each event's data as it completes, across chunk boundaries and line endings", async () => {
    const events = await all(
      chunks('id: 1\ndata: {"a"', ":1}\n\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n", "data: z"),
    );
    // The last event never ended with a blank line, so it is not a message yet.
    expect(events).toEqual(['{"a":1}', "x\ny"]);
  });

  it("skips events that carry no data (priming events)", async () => {
    expect(await all(chunks("id: 0\nretry: 1000\n\n", "data: only\n\n"))).toEqual(["only"]);
  });

  it("stops where the stream stops", async () => {
    const iterator = sseData(chunks("data: first\n\n", "data: second\n\n"))[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe("first");
    expect((await iterator.next()).value).toBe("second");
    expect((await iterator.next()).done).toBe(true);
  });
});
