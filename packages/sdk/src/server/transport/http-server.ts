import type { IncomingMessage, ServerResponse } from "node:http";
import { carrierTargetField, isCarrierMethod } from "../../protocol/carriers.js";
import { McpError } from "../../protocol/errors.js";
import {
  checkParamHeaders,
  decodeHeaderValue,
  HEADER,
  type HeaderParam,
  headerParamsOf,
  headerText,
} from "../../protocol/http-headers.js";
import {
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  parseInboundMessage,
  readRequestId,
} from "../../protocol/jsonrpc.js";
import { describeError } from "../../protocol/logger.js";
import { RequestAbort } from "../../protocol/request-abort.js";
import type { RequestMeta } from "../../protocol/schemas/envelope.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import { META } from "../../protocol/versions.js";
import type { AuthInfo } from "../auth-info.js";
import { type Server, type ServerSource, serverOf, type ToolLookup } from "../server.js";
import { HttpError, statusForError } from "./http-errors.js";
import { hostAllowed, type OriginPolicy, originAllowed } from "./origin-policy.js";
import { SseStream } from "./sse.js";

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpHandlerOptions {
  /** Largest request body accepted, in bytes (413 beyond). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Browser origins allowed to call; default: loopback origins only. */
  allowedOrigins?: OriginPolicy;
  /** Host header allow-list; set it for servers bound to loopback. Default: any host. */
  allowedHosts?: readonly string[];
  /**
   * Authenticates the request before any MCP processing. Return the validated token, or throw an
   * HttpError (401/403 with its WWW-Authenticate challenge).
   */
  authenticate?: (req: IncomingMessage) => Promise<AuthInfo | undefined>;
}

/** A Node `req`/`res` handler for the Streamable HTTP transport; `body` is the pre-read body, if any. */
export type NodeMcpHandler = (req: IncomingMessage, res: ServerResponse, body?: unknown) => Promise<void>;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      ...headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    })
    .end(text);
}

function sendHttpError(res: ServerResponse, error: HttpError): void {
  const body =
    error.code === undefined
      ? undefined
      : errorResponse(undefined, { code: error.code, message: error.message });
  send(res, error.status, body ?? { error: error.message }, { ...error.headers });
}

/** Which of the two response types the client takes, read once from its Accept header. */
interface Accepted {
  json: boolean;
  sse: boolean;
}

const ACCEPTS_ANY: Accepted = Object.freeze({ json: true, sse: true });
const REFUSED = /^\s*q\s*=\s*0(?:\.0*)?\s*$/i;

/** Clients send the same Accept header on every request: the last one read is kept with its verdict. */
let lastAccept: { header: string; accepted: Accepted } | undefined;

function accepted(accept: string | undefined): Accepted {
  if (!accept) return ACCEPTS_ANY;
  if (lastAccept?.header === accept) return lastAccept.accepted;
  const result = parseAccept(accept);
  lastAccept = { header: accept, accepted: result };
  return result;
}

function parseAccept(accept: string): Accepted {
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

/** The whole body, refused beyond `limit` bytes as soon as it gets there. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  // Already read to the end by someone else: no more events will come.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error("the client closed the request before sending its whole body"));
    };
    const cleanup = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/** A body a framework read for us, held to the same limit. */
function withinLimit(body: unknown, limit: number): unknown {
  if ((Buffer.isBuffer(body) || typeof body === "string") && Buffer.byteLength(body) > limit) {
    throw tooLarge(limit);
  }
  return body;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    `Request body exceeds ${limit} bytes; send a smaller request or raise maxBodyBytes`,
    {
      code: -32600,
    },
  );
}

function decodeJson(body: unknown): unknown {
  if (Buffer.isBuffer(body) || typeof body === "string") {
    try {
      return JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
    } catch {
      throw McpError.parseError("Parse error: the request body is not valid JSON");
    }
  }
  return body;
}

function requireHeader(headers: IncomingMessage["headers"], name: string, label: string): string {
  const raw = headerText(headers, name);
  if (raw === undefined)
    throw McpError.headerMismatch(`Header mismatch: required header ${label} is missing`);
  const value = decodeHeaderValue(raw);
  if (value === undefined)
    throw McpError.headerMismatch(`Header mismatch: ${label} header has invalid characters or encoding`);
  return value;
}

const NO_HEADER_PARAMS: readonly HeaderParam[] = [];
const headerParamsByTool = new WeakMap<Tool, readonly HeaderParam[] | string>();

/** A tool's `x-mcp-header` annotations, walked once per definition rather than once per call. */
function headerParamsOfTool(tool: Tool): readonly HeaderParam[] | string {
  let params = headerParamsByTool.get(tool);
  if (params === undefined) {
    params = headerParamsOf(tool);
    headerParamsByTool.set(tool, params);
  }
  return params;
}

/** The request metadata headers must mirror the body, so intermediaries can route on them safely. */
async function checkHeaders(
  headers: IncomingMessage["headers"],
  request: JsonRpcRequest,
  meta: RequestMeta,
  lookupTool: ToolLookup,
): Promise<void> {
  const version = requireHeader(headers, HEADER.protocolVersion, "MCP-Protocol-Version");
  if (version !== meta[META.protocolVersion]) {
    throw McpError.headerMismatch(
      `Header mismatch: MCP-Protocol-Version header value '${version}' does not match body value '${meta[META.protocolVersion]}'`,
    );
  }
  const method = requireHeader(headers, HEADER.method, "Mcp-Method");
  if (method !== request.method) {
    throw McpError.headerMismatch(
      `Header mismatch: Mcp-Method header value '${method}' does not match body value '${request.method}'`,
    );
  }
  const params = request.params ?? {};
  if (isCarrierMethod(request.method)) {
    const name = requireHeader(headers, HEADER.name, "Mcp-Name");
    const expected = params[carrierTargetField(request.method)];
    if (name !== expected) {
      throw McpError.headerMismatch(
        `Header mismatch: Mcp-Name header value '${name}' does not match body value '${String(expected)}'`,
      );
    }
  }
  if (request.method === "tools/call" && typeof params.name === "string") {
    const tool = await lookupTool(params.name);
    const headerParams = tool ? headerParamsOfTool(tool) : NO_HEADER_PARAMS;
    if (Array.isArray(headerParams) && headerParams.length > 0) {
      const args = params.arguments as Record<string, unknown> | undefined;
      checkParamHeaders(headerParams, args, headers);
    }
  }
}

/**
 * Streamable HTTP, server side, for plain `node:http` or any framework that exposes Node's `req`/`res`.
 * POST only; one JSON-RPC message per body; JSON responses, or SSE when the request produces
 * notifications; a client disconnect aborts the request's handler.
 */
export function createNodeHandler(source: ServerSource, options: HttpHandlerOptions = {}): NodeMcpHandler {
  const server = serverOf(source);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (req, res, preRead) => {
    try {
      if (req.method !== "POST") {
        throw new HttpError(405, "Method Not Allowed: this MCP endpoint accepts POST only", {
          headers: { allow: "POST" },
          code: -32600,
        });
      }
      if (
        !hostAllowed(req.headers.host, options.allowedHosts) ||
        !originAllowed(req.headers.origin, options.allowedOrigins)
      ) {
        throw new HttpError(403, "Forbidden: Origin or Host is not allowed for this server", {
          code: -32600,
        });
      }
      const auth = options.authenticate ? await options.authenticate(req) : undefined;
      const contentType = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
      if (contentType !== "application/json") {
        throw new HttpError(415, "Unsupported Media Type: send the JSON-RPC message as application/json", {
          code: -32600,
        });
      }
      const accept = accepted(req.headers.accept);
      if (!accept.json && !accept.sse) {
        throw new HttpError(406, "Not Acceptable: accept application/json and text/event-stream", {
          code: -32600,
        });
      }
      const raw = preRead === undefined ? await readBody(req, limit) : withinLimit(preRead, limit);
      await serveMessage(server, req, res, raw, { auth, accept });
    } catch (error) {
      if (error instanceof HttpError) return sendHttpError(res, error);
      if (error instanceof McpError)
        return send(res, statusForError(error.code, true), errorResponse(undefined, error.toJSON()));
      server.logger.error(describeError(error), "HTTP request failed");
      send(res, 500, errorResponse(undefined, McpError.internal().toJSON()));
    }
  };
}

interface Admitted {
  auth: AuthInfo | undefined;
  accept: Accepted;
}

async function serveMessage(
  server: Server,
  req: IncomingMessage,
  res: ServerResponse,
  raw: unknown,
  { auth, accept }: Admitted,
): Promise<void> {
  const value = decodeJson(raw);
  let inbound: ReturnType<typeof parseInboundMessage>;
  try {
    inbound = parseInboundMessage(value);
  } catch (error) {
    if (error instanceof McpError) return send(res, 400, errorResponse(readRequestId(value), error.toJSON()));
    throw error;
  }
  if (inbound.kind === "notification") {
    // Cancellation on HTTP is the client closing its request; other client notifications have no meaning here.
    return send(res, 202, undefined);
  }
  const request = inbound.message;
  if (request.method === "subscriptions/listen" && !accept.sse) {
    throw new HttpError(
      406,
      "Not Acceptable: subscriptions/listen answers with an SSE stream; accept text/event-stream",
      {
        code: -32600,
      },
    );
  }
  const abort = new RequestAbort();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  let stream: SseStream | undefined;
  const notify = (message: JsonRpcNotification): void => {
    if (!accept.sse || abort.aborted) return;
    stream ??= new SseStream(res);
    stream.send(message);
  };
  const handled = await server.handleRequest(request, {
    signal: abort,
    auth,
    notify,
    transport: { kind: "http", headers: req.headers },
    checkTransport: (r, meta, lookupTool) => checkHeaders(req.headers, r, meta, lookupTool),
  });
  if (abort.aborted) return;
  if (stream) return stream.end(handled.message);
  // A client that takes only event streams gets even a lone response as one event.
  if (!accept.json) return new SseStream(res).end(handled.message);
  const status =
    "error" in handled.message
      ? statusForError(handled.message.error.code, handled.refusedBeforeDispatch)
      : 200;
  send(res, status, handled.message);
}
