/**
 * Reads a server's answer to one POST: a JSON body, or an SSE stream whose last event is the
 * JSON-RPC response (earlier events are notifications). Both forms are legal for every target.
 */

export interface RawReply {
  status: number;
  contentType: string | undefined;
  body: string;
}

export type JsonRpcAnswer =
  | { kind: "result"; id: unknown; result: Record<string, unknown> }
  | { kind: "error"; id: unknown; code: number; message: string };

export class ReplyError extends Error {
  override readonly name = "ReplyError";
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(";")[0]?.trim().toLowerCase();
}

/** The data of the last event of a complete SSE body. */
function lastSseData(body: string): string {
  let last: string | undefined;
  for (const block of body.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((line) => line.startsWith("data:"));
    if (lines.length > 0) last = lines.map((line) => line.slice(5).replace(/^ /, "")).join("\n");
  }
  if (last === undefined) throw new ReplyError("the SSE reply carries no event");
  return last;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseReply(reply: RawReply): JsonRpcAnswer {
  const type = mediaType(reply.contentType);
  let text: string;
  if (type === "text/event-stream") text = lastSseData(reply.body);
  else if (type === "application/json") text = reply.body;
  else throw new ReplyError(`HTTP ${reply.status} with content-type ${String(reply.contentType)}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReplyError(`HTTP ${reply.status}: the body is not JSON: ${text.slice(0, 120)}`);
  }
  if (!isObject(value) || value.jsonrpc !== "2.0") {
    throw new ReplyError(`HTTP ${reply.status}: not a JSON-RPC message: ${text.slice(0, 120)}`);
  }
  if (isObject(value.result)) return { kind: "result", id: value.id, result: value.result };
  const error = value.error;
  if (isObject(error) && typeof error.code === "number" && typeof error.message === "string") {
    return { kind: "error", id: value.id, code: error.code, message: error.message };
  }
  throw new ReplyError(`HTTP ${reply.status}: neither a result nor an error: ${text.slice(0, 120)}`);
}

/** The joined text blocks of a tool result. */
export function toolText(result: Record<string, unknown>): string {
  const content = result.content;
  if (!Array.isArray(content)) throw new ReplyError("the tool result has no content array");
  return content
    .map((block: unknown) => (isObject(block) && block.type === "text" ? String(block.text) : ""))
    .join("");
}
