/** Which of the two response types the client takes, read from its Accept header. */
export interface Accepted {
  readonly json: boolean;
  readonly sse: boolean;
}

const ACCEPTS_ANY: Accepted = Object.freeze({ json: true, sse: true });
const REFUSED = /^\s*q\s*=\s*0(?:\.0*)?\s*$/i;

/** A missing or empty Accept header takes anything (RFC 9110 §12.5.1). */
export function parseAccept(accept: string | undefined): Accepted {
  if (!accept) return ACCEPTS_ANY;
  const result = { json: false, sse: false };
  for (const part of accept.split(",")) {
    const [rawMedia, ...parameters] = part.split(";");
    if (parameters.some((p) => REFUSED.test(p))) continue;
    const media = rawMedia?.trim().toLowerCase();
    if (media === "*/*") return ACCEPTS_ANY;
    if (media === "application/json" || media === "application/*") result.json = true;
    if (media === "text/event-stream" || media === "text/*") result.sse = true;
  }
  return Object.freeze(result);
}

/**
 * `parseAccept` remembering its last verdict. Clients send the same Accept header on every request,
 * so one remembered header spares the split on the hot path; each handler keeps its own, so servers
 * in one process never share what they have seen.
 */
export function acceptNegotiator(): (accept: string | undefined) => Accepted {
  let lastHeader: string | undefined;
  let lastAccepted = ACCEPTS_ANY;
  return (accept) => {
    if (!accept) return ACCEPTS_ANY;
    if (accept !== lastHeader) {
      lastAccepted = parseAccept(accept);
      lastHeader = accept;
    }
    return lastAccepted;
  };
}

/**
 * Whether a lone response goes out as one SSE event rather than as JSON: only to a client that takes no
 * JSON, and only with status 200. An error's status (400 for -32022, 404 for -32601) is part of the
 * answer whatever Accept says, and an event stream can only be a 200, so the error goes as JSON: RFC
 * 9110 §12.5.1 lets a server disregard Accept rather than hide the status.
 */
export function answersAsEvent(accept: Accepted, status: number): boolean {
  return !accept.json && status === 200;
}
