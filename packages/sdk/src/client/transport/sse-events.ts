export interface SseEvent {
  event: string;
  data: string;
  /** The stream's last event id when this event was dispatched (2025-era streams are resumable from it). */
  id?: string;
}

export interface SseReadOptions {
  /** The server's `retry:` field: how long to wait before reconnecting, in milliseconds. */
  onRetry?: (ms: number) => void;
}

/**
 * Reads a text/event-stream body event by event. Comment lines (keep-alives) and events without data
 * are skipped. 2026-07-28 streams carry no ids; 2025-era ones do, and a priming event with an id and
 * empty data is what makes a stream cut before its answer resumable, so its id is kept.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline = buffer.search(/\r\n|\r|\n/);
      while (newline !== -1) {
        // A CR that ends the chunk may be the first half of a CRLF still in flight.
        if (buffer[newline] === "\r" && newline === buffer.length - 1) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield dispatched(event, data, id);
          event = "";
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          let value = colon === -1 ? "" : line.slice(colon + 1);
          if (value.startsWith(" ")) value = value.slice(1);
          if (field === "data") data.push(value);
          else if (field === "event") event = value;
          else if (field === "id" && !value.includes("\0")) id = value;
          else if (field === "retry" && /^\d+$/.test(value)) options.onRetry?.(Number(value));
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
    }
    if (data.length > 0) yield dispatched(event, data, id);
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function dispatched(event: string, data: string[], id: string | undefined): SseEvent {
  const sse: SseEvent = { event: event || "message", data: data.join("\n") };
  if (id !== undefined && id !== "") sse.id = id;
  return sse;
}
