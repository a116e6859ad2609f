import { McpError } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/is-record.js";
import {
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from "../../protocol/jsonrpc.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { META } from "../../protocol/versions.js";
import type { Server } from "../server.js";
import type { StdioEra } from "../unenveloped-era.js";
import { LegacyEndpoint } from "./legacy-endpoint.js";
import type { ResolvedLegacyOptions } from "./options.js";
import type { LegacySession } from "./session.js";

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

/**
 * The 2025 era on stdio: the process has one session, opened with `initialize`; its requests have no
 * envelope, and an input-required result reaches the client as real requests on stdout, whose answers
 * arrive on stdin. Before any initialize there is no session to answer: a response is then the invalid
 * request it is for a 2026-07-28 server.
 */
export class LegacyStdio implements StdioEra {
  readonly #endpoint: LegacyEndpoint;
  readonly #write: (message: JsonRpcMessage) => void;
  readonly #pending = new Set<Promise<void>>();
  #session: LegacySession | undefined;

  constructor(server: Server, options: ResolvedLegacyOptions, write: (message: JsonRpcMessage) => void) {
    this.#endpoint = new LegacyEndpoint(server, options);
    this.#write = write;
  }

  answer(value: unknown): boolean {
    if (!this.#session || !isResponse(value)) return false;
    this.#endpoint.answer(this.#session, value);
    return true;
  }

  async notify(message: JsonRpcNotification): Promise<void> {
    if (this.#session) await this.#endpoint.notify(this.#session, message);
  }

  serve(request: JsonRpcRequest): Promise<void> | undefined {
    if (hasEnvelope(request.params)) return undefined;
    if (request.method === LegacyMethod.initialize) return this.#open(request);
    const session = this.#session;
    if (!session) {
      if (!SESSION_ONLY_METHODS.has(request.method)) return undefined;
      const refusal = McpError.invalidRequest(`${request.method} needs a session: send initialize first`);
      this.#write(errorResponse(request.id, refusal.toJSON()));
      return Promise.resolve();
    }
    const task = this.#endpoint
      .serve(session, request, {
        auth: undefined,
        transport: { kind: "stdio" },
        channel: this.#write,
        noChannel: "",
      })
      .then((response) => {
        if (response) this.#write(response);
      })
      .finally(() => this.#pending.delete(task));
    this.#pending.add(task);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.#endpoint.close();
    await Promise.allSettled([...this.#pending]);
  }

  /** A second initialize replaces the session the first opened. */
  async #open(request: JsonRpcRequest): Promise<void> {
    try {
      const { session, response } = await this.#endpoint.open(request, undefined, { kind: "stdio" });
      this.#session?.close();
      session.setStandalone(this.#write);
      this.#write(response);
      this.#session = session;
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      this.#write(errorResponse(request.id, error.toJSON()));
    }
  }
}
