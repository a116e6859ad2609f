export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Reads a text/event-stream body event by event. Comment lines (keep-alives) and events without data
 * are skipped; 2026-07-28 streams carry no ids and no resumption, so `id` and `retry` are ignored.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  let data: string[] = [];
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
          if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          let value = colon === -1 ? "" : line.slice(colon + 1);
          if (value.startsWith(" ")) value = value.slice(1);
          if (field === "data") data.push(value);
          else if (field === "event") event = value;
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
    }
    if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
