import type { JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import type { Envelope } from "../request/envelope.js";
import type { BeforeSend, Recovery } from "../request/recovery.js";
import type { ServerRequestResponder } from "../server-requests.js";
import type { ClientTransport, ServerRequestOrigin } from "../transport/client-transport.js";

/** Who a refusal names: the server's URL or command, and the version spoken with it. */
export interface SpokenWith {
  where(): string;
  readonly protocolVersion: string;
}

/** The fields of a round that only 2026-07-28 servers read. */
export interface RoundFields {
  inputResponses?: unknown;
  requestState?: unknown;
}

/** What the Client does differently in each era; the negotiation settles which one is spoken. */
export interface Era {
  /** Whether a tools/call over HTTP repeats its arguments in Mcp-Param-* headers. */
  readonly paramHeaders: boolean;
  /** The params a request carries on this era's wire. */
  wireParams(params: Record<string, unknown>, envelope: Envelope): Record<string, unknown>;
  /** A result as callers of either era read it. */
  result(method: string, raw: Record<string, unknown>): Record<string, unknown>;
  /** Throws when a call brings a round's answers or requestState, which this era has no use for. */
  refuseRoundFields(method: string, fields: RoundFields, server: SpokenWith): void;
  /** Throws when this era has no subscriptions/listen. */
  refuseListen(server: SpokenWith): void;
  /** Answers a request the server sent. */
  answer(
    request: JsonRpcRequest,
    origin: ServerRequestOrigin,
    responder: ServerRequestResponder,
  ): Promise<JsonRpcResponse>;
  /** Tells the server that the roots the client answers with changed, where the era has a way to. */
  rootsChanged(transport: ClientTransport): Promise<void>;
  /** Runs before each attempt of a request. */
  readonly beforeSend: BeforeSend;
  /** How a failed attempt may be fixed and sent again, in the order tried. */
  readonly recoveries: readonly Recovery[];
}
