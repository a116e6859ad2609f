import type { Readable, Writable } from "node:stream";
import { McpError } from "../../protocol/errors.js";
import {
  errorResponse,
  type JsonRpcMessage,
  parseInboundMessage,
  readRequestId,
} from "../../protocol/jsonrpc.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { CancelledParamsSchema, NotificationMethod } from "../../protocol/schemas/notifications.js";
import { encodeLine, readLines } from "../../protocol/stdio-framing.js";
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
 * with `initialize`; the server's 2025 era (UnenvelopedEra) serves that session's lines.
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
  const era = server.legacy?.stdio(write);

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
    if (era?.answer(value)) continue;
    let inbound: ReturnType<typeof parseInboundMessage>;
    try {
      inbound = parseInboundMessage(value);
    } catch (error) {
      if (error instanceof McpError) write(errorResponse(readRequestId(value), error.toJSON()));
      continue;
    }
    if (inbound.kind === "notification") {
      await era?.notify(inbound.message);
      if (inbound.message.method === NotificationMethod.cancelled) {
        const params = CancelledParamsSchema.safeParse(inbound.message.params);
        if (params.success) inFlight.get(params.data.requestId)?.abort();
      }
      continue;
    }
    const request = inbound.message;
    const served = era?.serve(request);
    if (served) {
      await served;
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
  const eraClosed = era?.close();
  await Promise.allSettled(eraClosed ? [...pending, eraClosed] : [...pending]);
}
