import { bodyTooLarge } from "./request-body.js";
import type { HeaderRecord, RequestHead } from "./request-head.js";

/**
 * A web Request as the exchange reads it. Headers are copied once into Node's shape (lower-cased
 * names, repeated values joined), which every check and handler downstream reads.
 */
export class FetchRequestHead implements RequestHead {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderRecord;
  readonly request: Request;

  constructor(request: Request) {
    this.method = request.method;
    this.url = request.url;
    this.headers = Object.fromEntries(request.headers);
    this.request = request;
  }
}

// The BOM is kept, as the Node path keeps it: both then refuse it alike as not JSON.
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The whole body as text, refused beyond `limit` bytes as soon as it gets there. */
export async function readFetchBody(head: FetchRequestHead, limit: number): Promise<string> {
  const declared = Number(head.request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  const body = head.request.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // The rest is dropped unread: the 413 is the whole answer, and the host ends the exchange.
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return UTF8.decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
