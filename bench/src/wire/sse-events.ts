/**
 * The `data` of each SSE event as it arrives, for replies the driver must act on before they end (a
 * 2025-era call's stream carries the server's question, then, after the answer, the result).
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = /\r?\n\r?\n/.exec(buffered);
    while (end) {
      const block = buffered.slice(0, end.index);
      buffered = buffered.slice(end.index + end[0].length);
      const lines = block.split(/\r?\n/).filter((line) => line.startsWith("data:"));
      // Events without data (priming events that carry only an id) are not messages.
      if (lines.length > 0) yield lines.map((line) => line.slice(5).replace(/^ /, "")).join("\n");
      end = /\r?\n\r?\n/.exec(buffered);
    }
  }
}
