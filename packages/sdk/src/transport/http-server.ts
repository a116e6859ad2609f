import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "../auth-info.js";
import { describeError } from "../logger.js";
import { McpError } from "../protocol/errors.js";
import {
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  parseInboundMessage,
  readRequestId,
} from "../protocol/jsonrpc.js";
import type { RequestMeta } from "../protocol/schemas/envelope.js";
import { META } from "../protocol/versions.js";
import { type Server, type ServerSource, serverOf, type ToolLookup } from "../server/server.js";
import { HttpError, statusForError } from "./http-errors.js";
import { checkParamHeaders, decodeHeaderValue, HEADER, headerParamsOf, headerText } from "./http-headers.js";
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

function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  if (!accept) return true;
  return accept.split(",").some((part) => {
    const [rawMedia, ...parameters] = part.split(";");
    const media = rawMedia?.trim().toLowerCase();
    const refused = parameters.some((p) => /^\s*q\s*=\s*0(?:\.0*)?\s*$/i.test(p));
    return !refused && (media === type || media === "*/*" || media === `${type.split("/")[0]}/*`);
  });
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
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
      return JSON.parse(body.toString());
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
  const nameField = request.method === "resources/read" ? "uri" : "name";
  if (
    request.method === "tools/call" ||
    request.method === "prompts/get" ||
    request.method === "resources/read"
  ) {
    const name = requireHeader(headers, HEADER.name, "Mcp-Name");
    const expected = params[nameField];
    if (name !== expected) {
      throw McpError.headerMismatch(
        `Header mismatch: Mcp-Name header value '${name}' does not match body value '${String(expected)}'`,
      );
    }
  }
  if (request.method === "tools/call" && typeof params.name === "string") {
    const tool = await lookupTool(params.name);
    const headerParams = tool ? headerParamsOf(tool) : [];
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
      if (!accepts(req, "application/json") && !accepts(req, "text/event-stream")) {
        throw new HttpError(406, "Not Acceptable: accept application/json and text/event-stream", {
          code: -32600,
        });
      }
      const raw = preRead === undefined ? await readBody(req, limit) : preRead;
      if ((Buffer.isBuffer(raw) || typeof raw === "string") && Buffer.byteLength(raw) > limit)
        throw tooLarge(limit);
      await serveMessage(server, req, res, raw, auth);
    } catch (error) {
      if (error instanceof HttpError) return sendHttpError(res, error);
      if (error instanceof McpError)
        return send(res, statusForError(error.code, true), errorResponse(undefined, error.toJSON()));
      server.logger.error(describeError(error), "HTTP request failed");
      send(res, 500, errorResponse(undefined, McpError.internal().toJSON()));
    }
  };
}

async function serveMessage(
  server: Server,
  req: IncomingMessage,
  res: ServerResponse,
  raw: unknown,
  auth: AuthInfo | undefined,
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
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const wantsSse = accepts(req, "text/event-stream");
  if (request.method === "subscriptions/listen" && !wantsSse) {
    throw new HttpError(
      406,
      "Not Acceptable: subscriptions/listen answers with an SSE stream; accept text/event-stream",
      {
        code: -32600,
      },
    );
  }
  let stream: SseStream | undefined;
  const notify = (message: JsonRpcNotification): void => {
    if (!wantsSse || controller.signal.aborted) return;
    stream ??= new SseStream(res);
    stream.send(message);
  };
  const handled = await server.handleRequest(request, {
    signal: controller.signal,
    auth,
    notify,
    transport: { kind: "http", headers: req.headers },
    checkTransport: (r, meta, lookupTool) => checkHeaders(req.headers, r, meta, lookupTool),
  });
  if (controller.signal.aborted) return;
  if (stream) return stream.end(handled.message);
  // A client that takes only event streams gets even a lone response as one event.
  if (!accepts(req, "application/json")) return new SseStream(res).end(handled.message);
  const status =
    "error" in handled.message
      ? statusForError(handled.message.error.code, handled.refusedBeforeDispatch)
      : 200;
  send(res, status, handled.message);
}
