import { createParser } from "eventsource-parser";
import { ResponseTooLargeError } from "./http-errors.js";

export interface SseEvent {
  event: string;
  data: string;
  /** The stream's last event id when this event was dispatched (2025-era streams are resumable from it). */
  id?: string;
}

export interface SseReadOptions {
  /** The server's `retry:` field: how long to wait before reconnecting, in milliseconds. */
  onRetry?: (ms: number) => void;
  /** The longest event, in characters, before reading stops with ResponseTooLargeError. Unlimited by default. */
  maxEventChars?: number;
  /** The stream's URL, for the error that names it. */
  url?: string;
}

/**
 * Reads a text/event-stream body event by event. Comment lines (keep-alives) and events without data
 * are skipped, and so is an event the stream ends in the middle of, as the SSE specification says.
 * 2026-07-28 streams carry no ids; 2025-era ones do, and a priming event with an id and empty data is
 * what makes a stream cut before its answer resumable, so its id is kept for the events that follow.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const ready: SseEvent[] = [];
  let lastEventId: string | undefined;
  let overflowed = false;
  // The parser scans each chunk once and keeps an unfinished line as fragments, so an endless line
  // costs its length, not its length squared.
  const parser = createParser({
    onEvent: (message) => {
      // The parser reports each event's own id; the SSE "last event id" persists until the next one.
      if (message.id !== undefined) lastEventId = message.id;
      const event: SseEvent = { event: message.event ?? "message", data: message.data };
      if (lastEventId !== undefined && lastEventId !== "") event.id = lastEventId;
      ready.push(event);
    },
    onRetry: (ms) => options.onRetry?.(ms),
    // A retry that is not a number and fields the specification does not know are ignored, as it says.
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") overflowed = true;
    },
    maxBufferSize: Number.isFinite(options.maxEventChars) ? options.maxEventChars : undefined,
  });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
      // Events completed before the oversized one still count: one of them may be the answer.
      for (const event of ready.splice(0)) yield event;
      if (overflowed) {
        throw new ResponseTooLargeError(
          options.url ?? "the server",
          "maxEventChars",
          options.maxEventChars ?? 0,
        );
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
