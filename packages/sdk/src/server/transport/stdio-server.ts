import type { Readable, Writable } from "node:stream";
import { McpError } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/is-record.js";
import {
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  parseInboundMessage,
  readRequestId,
} from "../../protocol/jsonrpc.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { CancelledParamsSchema, NotificationMethod } from "../../protocol/schemas/notifications.js";
import { encodeLine, readLines } from "../../protocol/stdio-framing.js";
import { META } from "../../protocol/versions.js";
import { LegacyEndpoint } from "../legacy/legacy-endpoint.js";
import type { LegacySession } from "../legacy/session.js";
import { type ServerSource, serverOf } from "../server.js";

export interface StdioServerOptions {
  input?: Readable;
  output?: Writable;
}

/**
 * Serves newline-delimited JSON-RPC on stdin/stdout. Requests run concurrently; a
 * `notifications/cancelled` aborts the matching one. Resolves when the input ends (the client's
 * shutdown signal), after in-flight requests have answered.
 *
 * A 2025-era client (unless the server's `legacy` option is false) opens one session for the process
 * with `initialize`; its requests have no envelope, and an input-required result reaches it as real
 * requests on stdout, whose answers arrive on stdin.
 */
export async function serveStdio(source: ServerSource, options: StdioServerOptions = {}): Promise<void> {
  const server = serverOf(source);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const inFlight = new Map<RequestId, AbortController>();
  const pending = new Set<Promise<void>>();
  const write = (message: JsonRpcMessage): void => {
    output.write(encodeLine(message));
  };
  const legacy = server.legacy ? new LegacyEndpoint(server, server.legacy) : undefined;
  let session: LegacySession | undefined;

  for await (const line of readLines(input)) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      write(
        errorResponse(
          undefined,
          McpError.parseError("Parse error: each line must be one JSON-RPC message").toJSON(),
        ),
      );
      continue;
    }
    // Before any initialize there is no session to answer: a response is then the invalid request
    // it is for a 2026-07-28 server.
    if (legacy && session && isResponse(value)) {
      legacy.answer(session, value);
      continue;
    }
    let inbound: ReturnType<typeof parseInboundMessage>;
    try {
      inbound = parseInboundMessage(value);
    } catch (error) {
      if (error instanceof McpError) write(errorResponse(readRequestId(value), error.toJSON()));
      continue;
    }
    if (inbound.kind === "notification") {
      if (legacy && session) await legacy.notify(session, inbound.message);
      if (inbound.message.method === NotificationMethod.cancelled) {
        const params = CancelledParamsSchema.safeParse(inbound.message.params);
        if (params.success) inFlight.get(params.data.requestId)?.abort();
      }
      continue;
    }
    const request = inbound.message;
    if (legacy && !session && SESSION_ONLY_METHODS.has(request.method) && !hasEnvelope(request.params)) {
      write(
        errorResponse(
          request.id,
          McpError.invalidRequest(`${request.method} needs a session: send initialize first`).toJSON(),
        ),
      );
      continue;
    }
    if (legacy && !hasEnvelope(request.params) && (session || request.method === LegacyMethod.initialize)) {
      if (request.method === LegacyMethod.initialize) {
        session = await openSession(legacy, request, session, write);
        continue;
      }
      const current = session as LegacySession;
      const task = legacy
        .serve(current, request, {
          auth: undefined,
          transport: { kind: "stdio" },
          channel: write,
          noChannel: "",
        })
        .then((response) => {
          if (response) write(response);
        })
        .finally(() => pending.delete(task));
      pending.add(task);
      continue;
    }
    const controller = new AbortController();
    inFlight.set(request.id, controller);
    const task = server
      .handleRequest(request, {
        signal: controller.signal,
        notify: write,
        transport: { kind: "stdio" },
      })
      .then((handled) => {
        // A cancelled request gets no response.
        if (!controller.signal.aborted) write(handled.message);
      })
      .finally(() => {
        inFlight.delete(request.id);
        pending.delete(task);
      });
    pending.add(task);
  }
  server.close();
  legacy?.close();
  await Promise.allSettled([...pending]);
}

/** Methods that exist only on a 2025-era session: before initialize, the client is told to send it. */
const SESSION_ONLY_METHODS: ReadonlySet<string> = new Set([
  LegacyMethod.ping,
  LegacyMethod.setLevel,
  LegacyMethod.subscribe,
  LegacyMethod.unsubscribe,
]);

function isResponse(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.method !== "string" && ("result" in value || "error" in value);
}

function hasEnvelope(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return isRecord(meta) && typeof meta[META.protocolVersion] === "string";
}

/** `initialize` on stdio: the process has one session, so a second initialize replaces the first. */
async function openSession(
  legacy: LegacyEndpoint,
  request: JsonRpcRequest,
  previous: LegacySession | undefined,
  write: (message: JsonRpcMessage) => void,
): Promise<LegacySession | undefined> {
  try {
    const { session, response } = await legacy.open(request, undefined);
    previous?.close();
    session.setStandalone(write);
    write(response);
    return session;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    write(errorResponse(request.id, error.toJSON()));
    return previous;
  }
}
