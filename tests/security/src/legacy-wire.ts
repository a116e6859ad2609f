import { LATEST_LEGACY_PROTOCOL_VERSION } from "@roundtrip/sdk/protocol";

/**
 * A 2025-11-25 Streamable HTTP client at the wire, with nothing checked on its side: attacks need to
 * send what no well-behaved client would (another user's session id, another stream's event id).
 */

export interface SseEvent {
  id: string | undefined;
  data: unknown;
}

export interface LegacyReply {
  status: number;
  sessionId: string | undefined;
  /** A JSON body, or the events of an SSE body read to its end. */
  json: unknown;
  events: SseEvent[];
}

let nextId = 1;

export function legacyRequest(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id: nextId++, method, params };
}

function headersFor(token: string | undefined, sessionId: string | undefined, sse: boolean) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: sse ? "application/json, text/event-stream" : "application/json",
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = LATEST_LEGACY_PROTOCOL_VERSION;
  }
  return headers;
}

/** Parses an SSE body: the `id:` and JSON `data:` of each event. */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) events.push({ id, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

async function replyOf(response: Response): Promise<LegacyReply> {
  const text = await response.text();
  const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  let json: unknown;
  if (!sse && text !== "") {
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
  }
  return {
    status: response.status,
    sessionId: response.headers.get("mcp-session-id") ?? undefined,
    json,
    events: sse ? sseEvents(text) : [],
  };
}

/** `initialize`, optionally naming a session id of the caller's choosing (a fixation attempt). */
export async function initialize(url: string, token: string, sessionId?: string): Promise<LegacyReply> {
  const headers = headersFor(token, undefined, false);
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(
      legacyRequest("initialize", {
        protocolVersion: LATEST_LEGACY_PROTOCOL_VERSION,
        capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
        clientInfo: { name: "security-suite", version: "0.0.0" },
      }),
    ),
  });
  return replyOf(response);
}

/** `initialize` then `notifications/initialized`, as a client that may be asked questions does. */
export async function openSession(url: string, token: string): Promise<string> {
  const opened = await initialize(url, token);
  if (opened.status !== 200 || opened.sessionId === undefined) {
    throw new Error(`initialize was refused (HTTP ${opened.status}): ${JSON.stringify(opened.json)}`);
  }
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  const reply = await post(url, token, opened.sessionId, initialized);
  if (reply.status !== 202) throw new Error(`notifications/initialized got HTTP ${reply.status}`);
  return opened.sessionId;
}

/** One POST on a session, read to its end. */
export async function post(
  url: string,
  token: string | undefined,
  sessionId: string,
  message: unknown,
  options: { sse?: boolean } = {},
): Promise<LegacyReply> {
  const response = await fetch(url, {
    method: "POST",
    headers: headersFor(token, sessionId, options.sse ?? false),
    body: JSON.stringify(message),
  });
  return replyOf(response);
}

/** A POST whose SSE answer is left open: its events arrive one at a time through `next()`. */
export async function postStream(url: string, token: string, sessionId: string, message: unknown) {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    headers: headersFor(token, sessionId, true),
    body: JSON.stringify(message),
    signal: controller.signal,
  });
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream") || !response.body) {
    throw new Error(`no stream in the answer (HTTP ${response.status}): ${await response.text()}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    status: response.status,
    async next(): Promise<SseEvent> {
      for (;;) {
        const end = buffered.search(/\r?\n\r?\n/);
        if (end >= 0) {
          const [event] = sseEvents(buffered.slice(0, end));
          buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, "");
          if (event) return event;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended before another event");
        buffered += value;
      }
    },
    /** Drops the connection, as a client that goes away does. */
    drop(): void {
      controller.abort();
    },
  };
}

export async function getStream(
  url: string,
  token: string,
  sessionId: string,
  lastEventId?: string,
): Promise<LegacyReply> {
  const headers = headersFor(token, sessionId, true);
  headers.accept = "text/event-stream";
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const controller = new AbortController();
  const response = await fetch(url, { method: "GET", headers, signal: controller.signal });
  if (response.status === 200) {
    // A stream that was opened stays open; what matters to these tests is that it was.
    controller.abort();
    return { status: 200, sessionId, json: undefined, events: [] };
  }
  return replyOf(response);
}

export async function endSession(url: string, token: string, sessionId: string): Promise<LegacyReply> {
  const response = await fetch(url, { method: "DELETE", headers: headersFor(token, sessionId, false) });
  return replyOf(response);
}
