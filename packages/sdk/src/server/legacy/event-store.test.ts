import { describe, expect, it } from "vitest";
import { notification } from "../../protocol/jsonrpc.js";
import { InMemoryEventStore, streamOfEvent } from "./event-store.js";

const note = (n: number) => notification("notifications/message", { n });

async function replay(store: InMemoryEventStore, from: string) {
  const seen: [string, unknown][] = [];
  const stream = await store.replayAfter(from, (id, message) => {
    seen.push([id, message]);
  });
  return { stream, seen };
}

describe("InMemoryEventStore", () => {
  it("replays, in order, what a stream recorded after the given event, and nothing of other streams", async () => {
    const store = new InMemoryEventStore();
    const first = await store.append("s.1", note(1));
    await store.append("s.2", note(99));
    const second = await store.append("s.1", note(2));
    const third = await store.append("s.1", note(3));
    expect(streamOfEvent(first)).toBe("s.1");
    expect(await replay(store, first)).toEqual({
      stream: "s.1",
      seen: [
        [second, note(2)],
        [third, note(3)],
      ],
    });
    expect(await replay(store, third)).toEqual({ stream: "s.1", seen: [] });
  });

  it("refuses ids it never minted, ids from the future and ids older than what it keeps", async () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2 });
    const ids = [];
    for (let n = 1; n <= 4; n++) ids.push(await store.append("s.1", note(n)));
    for (const id of ["", "garbage", "s.1:x", "s.1:9", "other:1", ids[0] as string]) {
      expect((await replay(store, id)).stream, id).toBeUndefined();
    }
    // The oldest kept event can still be resumed from without a gap.
    expect((await replay(store, ids[1] as string)).seen.map(([, m]) => m)).toEqual([note(3), note(4)]);
  });

  it("keeps at most maxStreams streams, dropping the least recently written, and forgets on request", async () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const a = await store.append("a", note(1));
    const b = await store.append("b", note(1));
    await store.append("a", note(2));
    await store.append("c", note(1));
    expect((await replay(store, b)).stream).toBeUndefined();
    expect((await replay(store, a)).stream).toBe("a");
    await store.forget("a");
    expect((await replay(store, a)).stream).toBeUndefined();
  });

  it("rejects bounds that are not positive integers", () => {
    expect(() => new InMemoryEventStore({ maxStreams: 0 })).toThrow(TypeError);
    expect(() => new InMemoryEventStore({ maxEventsPerStream: 1.5 })).toThrow(TypeError);
  });
});
