import type { IncomingMessage, ServerResponse } from "node:http";
import { carrierTarget, isCarrierMethod } from "../../protocol/carriers.js";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { headerText } from "../../protocol/http-headers.js";
import { errorResponse, type JsonRpcNotification } from "../../protocol/jsonrpc.js";
import { describeError } from "../../protocol/logger.js";
import { RequestAbort } from "../../protocol/request-abort.js";
import type { RequestTarget } from "../auth/request-target.js";
import type { AuthInfo } from "../auth-info.js";
import { type Server, type ServerSource, serverOf } from "../server.js";
import { type Accepted, acceptNegotiator, answersAsEvent } from "./accept-negotiation.js";
import { checkHeaderAgreement, checkParamAgreement } from "./header-agreement.js";
import { HttpError, statusForError } from "./http-errors.js";
import { httpTransportInfo } from "./http-peer.js";
import { inboundOrRefuse, sendHttpError, sendJson } from "./json-response.js";
import { hostAllowed, type OriginPolicy, originAllowed } from "./origin-policy.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BODY_DEPTH,
  decodeJson,
  readBody,
  withinLimit,
} from "./request-body.js";
import type { RequestHead } from "./request-head.js";
import type { ResponseWriter } from "./response-writer.js";
import { SseStream } from "./sse.js";

// server/index.ts and fastify.ts take the whole transport's surface from this module.
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_BODY_DEPTH };

/** `Req` is what the authenticate hook is handed: Node's IncomingMessage, or a RequestHead from fetch. */
export interface HttpHandlerOptions<Req extends RequestHead = IncomingMessage> {
  /** Largest request body accepted, in bytes (413 beyond). Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Levels of arrays and objects a request body may nest, the message being level 1; deeper is
   * refused (400, -32700) before it is parsed. Default 128: room for the default `paramsLimits`
   * depth of 64 and the envelope; a server that raises that past about 120 raises this with it.
   */
  maxBodyDepth?: number;
  /** Browser origins allowed to call; default: loopback origins only. */
  allowedOrigins?: OriginPolicy;
  /** Host header allow-list; set it for servers bound to loopback. Default: any host. */
  allowedHosts?: readonly string[];
  /**
   * Authenticates the request before any MCP processing. Return the validated token, or throw an
   * HttpError (401/403 with its WWW-Authenticate challenge). A 2025-era request is authenticated a
   * second time with `target`, the method and tool its body names, since it carries no Mcp-Name header.
   */
  authenticate?: (req: Req, target?: RequestTarget) => Promise<AuthInfo | undefined>;
}

/**
 * What the exchange checks on a request's head, before it reads a byte of its body: the method, Origin
 * and Host, then the token; the token's verdict, or the HttpError that refuses the request. A body the
 * caller was not allowed to send is thus never read, let alone parsed. `legacy`: GET and DELETE serve
 * 2025-era sessions.
 */
export function headCheck<Req extends RequestHead>(
  options: HttpHandlerOptions<Req>,
  legacy: boolean,
): (req: Req) => Promise<AuthInfo | undefined> {
  return async (req) => {
    if (req.method !== "POST" && !(legacy && (req.method === "GET" || req.method === "DELETE"))) {
      throw new HttpError(
        405,
        legacy
          ? "Method Not Allowed: this MCP endpoint accepts POST, and GET and DELETE on a 2025-era session"
          : "Method Not Allowed: this MCP endpoint accepts POST only",
        { headers: { allow: legacy ? "POST, GET, DELETE" : "POST" }, rpcCode: ErrorCode.InvalidRequest },
      );
    }
    if (
      !hostAllowed(headerText(req.headers, "host"), options.allowedHosts) ||
      !originAllowed(headerText(req.headers, "origin"), options.allowedOrigins)
    ) {
      throw new HttpError(403, "Forbidden: Origin or Host is not allowed for this server", {
        rpcCode: ErrorCode.InvalidRequest,
      });
    }
    return options.authenticate ? await options.authenticate(req) : undefined;
  };
}

/** A Node `req`/`res` handler for the Streamable HTTP transport; `body` is the pre-read body, if any. */
export type NodeMcpHandler = (req: IncomingMessage, res: ServerResponse, body?: unknown) => Promise<void>;

/**
 * Streamable HTTP for plain `node:http` or any framework that exposes Node's `req`/`res`: Node's
 * request and response are what the exchange reads and writes, as they stand.
 */
export function createNodeHandler(
  source: ServerSource,
  options: HttpHandlerOptions<IncomingMessage> = {},
): NodeMcpHandler {
  return createHttpExchange(source, options, readBody);
}

/** One exchange: the request's head, where its answer goes, and its body when a framework read it first. */
export type HttpExchange<Req extends RequestHead> = (
  req: Req,
  res: ResponseWriter,
  preRead?: unknown,
) => Promise<void>;

/** How a host hands over the body it has not read yet, bounded by `limit` bytes. */
export type BodyReader<Req> = (req: Req, limit: number) => Promise<unknown>;

/**
 * Streamable HTTP, server side, whatever the host: the Node and fetch handlers adapt their request
 * and response to this and nothing else. 2026-07-28: POST only; one JSON-RPC message per body; JSON
 * responses, or SSE when the request produces notifications; a client disconnect ("close" before
 * the response finished) aborts the request's handler. 2025-era clients (unless the server's
 * `legacy` option is false) get sessions on the same endpoint, from the server's UnenvelopedEra.
 */
export function createHttpExchange<Req extends RequestHead>(
  source: ServerSource,
  options: HttpHandlerOptions<Req>,
  readBody: BodyReader<Req>,
): HttpExchange<Req> {
  const server = serverOf(source);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxDepth = options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH;
  const negotiate = acceptNegotiator();
  const legacy = server.legacy?.http();
  const admit = headCheck(options, legacy !== undefined);
  return async (req, res, preRead) => {
    try {
      const auth = await admit(req);
      if (legacy && req.method === "GET") {
        return await legacy.get(req, res, auth, negotiate(headerText(req.headers, "accept")));
      }
      if (legacy && req.method === "DELETE") return await legacy.delete(req, res, auth);
      const contentType = headerText(req.headers, "content-type")?.split(";")[0]?.trim().toLowerCase();
      if (contentType !== "application/json") {
        throw new HttpError(415, "Unsupported Media Type: send the JSON-RPC message as application/json", {
          rpcCode: ErrorCode.InvalidRequest,
        });
      }
      const accept = negotiate(headerText(req.headers, "accept"));
      if (!accept.json && !accept.sse) {
        throw new HttpError(406, "Not Acceptable: accept application/json and text/event-stream", {
          rpcCode: ErrorCode.InvalidRequest,
        });
      }
      const raw = preRead === undefined ? await readBody(req, limit) : withinLimit(preRead, limit);
      const value = decodeJson(raw, maxDepth);
      if (legacy?.claims(req.headers, value)) {
        // A 2025-era request names its tool in the body only: authenticate again, now that the
        // target is known, so a tool's own scopes hold in this era too.
        const target = bodyTargetOf(value);
        const scoped =
          options.authenticate && target !== undefined ? await options.authenticate(req, target) : auth;
        return await legacy.post(req, res, value, scoped, accept);
      }
      await serveMessage(server, req, res, value, { auth, accept });
    } catch (error) {
      if (error instanceof HttpError) return sendHttpError(res, error);
      if (error instanceof McpError)
        return sendJson(res, statusForError(error.code, true), errorResponse(undefined, error.toJSON()));
      server.logger.error(describeError(error), "HTTP request failed");
      sendJson(res, 500, errorResponse(undefined, McpError.internal().toJSON()));
    }
  };
}

/** What a JSON-RPC body addresses: its method and, for a carrier, the tool, prompt or URI. */
function bodyTargetOf(value: unknown): RequestTarget | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { method, params } = value as { method?: unknown; params?: unknown };
  if (typeof method !== "string" || !isCarrierMethod(method)) return undefined;
  const record =
    typeof params === "object" && params !== null ? (params as Record<string, unknown>) : undefined;
  return { method, name: carrierTarget(method, record) };
}

interface Admitted {
  auth: AuthInfo | undefined;
  accept: Accepted;
}

async function serveMessage(
  server: Server,
  req: RequestHead,
  res: ResponseWriter,
  value: unknown,
  { auth, accept }: Admitted,
): Promise<void> {
  const inbound = inboundOrRefuse(res, value);
  if (inbound === undefined) return;
  if (inbound.kind === "notification") {
    // Cancellation on HTTP is the client closing its request; other client notifications have no meaning here.
    return sendJson(res, 202, undefined);
  }
  const request = inbound.message;
  if (request.method === "subscriptions/listen" && !accept.sse) {
    throw new HttpError(
      406,
      "Not Acceptable: subscriptions/listen answers with an SSE stream; accept text/event-stream",
      {
        rpcCode: ErrorCode.InvalidRequest,
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
    transport: httpTransportInfo(req),
    checkTransport: (r, meta) => checkHeaderAgreement(req.headers, r, meta),
    checkToolCall: (tool, args) => checkParamAgreement(req.headers, tool, args),
  });
  if (abort.aborted) return;
  if (stream) return stream.end(handled.message);
  const status =
    "error" in handled.message
      ? statusForError(handled.message.error.code, handled.refusedBeforeDispatch)
      : 200;
  if (answersAsEvent(accept, status)) return new SseStream(res).end(handled.message);
  sendJson(res, status, handled.message);
}
