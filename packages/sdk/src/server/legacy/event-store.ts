import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { EventStore } from "../unenveloped-era.js";

/** The stream an event id belongs to, or undefined when the id is not one this SDK minted. */
export function streamOfEvent(eventId: string): string | undefined {
  const cut = eventId.lastIndexOf(":");
  if (cut <= 0 || !/^\d+$/.test(eventId.slice(cut + 1))) return undefined;
  return eventId.slice(0, cut);
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped and can no longer be replayed. Default 200. */
  maxEventsPerStream?: number;
  /** Streams kept in all; the least recently written is dropped first. Default 1000. */
  maxStreams?: number;
}

interface StoredStream {
  next: number;
  events: { seq: number; message: JsonRpcMessage }[];
}

/** An EventStore in process memory, bounded in both directions; right for one process only. */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StoredStream>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxEvents = positive(options.maxEventsPerStream, 200, "maxEventsPerStream");
    this.#maxStreams = positive(options.maxStreams, 1000, "maxStreams");
  }

  async append(streamId: string, message: JsonRpcMessage): Promise<string> {
    let stream = this.#streams.get(streamId);
    if (stream) {
      // Re-inserted so that Map order is least recently written first.
      this.#streams.delete(streamId);
    } else {
      stream = { next: 1, events: [] };
      if (this.#streams.size >= this.#maxStreams) {
        const oldest = this.#streams.keys().next().value;
        if (oldest !== undefined) this.#streams.delete(oldest);
      }
    }
    this.#streams.set(streamId, stream);
    const seq = stream.next++;
    stream.events.push({ seq, message });
    if (stream.events.length > this.#maxEvents) stream.events.shift();
    return `${streamId}:${seq}`;
  }

  async replayAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const streamId = streamOfEvent(lastEventId);
    if (streamId === undefined) return undefined;
    const stream = this.#streams.get(streamId);
    const after = Number(lastEventId.slice(streamId.length + 1));
    // An event older than what is kept cannot be resumed from without a gap.
    if (!stream || after >= stream.next || (stream.events[0] && stream.events[0].seq > after + 1)) {
      return undefined;
    }
    for (const event of stream.events) {
      if (event.seq > after) await send(`${streamId}:${event.seq}`, event.message);
    }
    return streamId;
  }

  async forget(streamId: string): Promise<void> {
    this.#streams.delete(streamId);
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer`);
  return value;
}
