import type { Attributes } from "@opentelemetry/api";
import { ATTR } from "../../protocol/telemetry/names.js";
import type { TransportInfo } from "../context.js";

/** What dispatch knows of a request besides its message: the era and the transport. */
export interface ServedVia {
  /** A 2025-era session's request; `id` names the session where no header does (its initialize). */
  readonly legacy?: { readonly protocolVersion: string; readonly id?: string };
  readonly transport?: TransportInfo;
}

/** The transport's low-cardinality facts, shared by every request over it: not the peer. */
export function transportAttributes(transport: TransportInfo | undefined): Attributes {
  if (transport?.kind === "http") {
    const version = transport.httpVersion;
    return {
      [ATTR.networkTransport]: "tcp",
      [ATTR.networkProtocolName]: "http",
      ...(version === undefined ? {} : { [ATTR.networkProtocolVersion]: version }),
    };
  }
  if (transport?.kind === "stdio") return { [ATTR.networkTransport]: "pipe" };
  return {};
}

/** A 2025-era session's id, which only HTTP puts on the wire: stdio's session has none to name. */
export function sessionId(via: ServedVia): string | undefined {
  if (!via.legacy || via.transport?.kind !== "http") return undefined;
  const header = via.transport.headers?.["mcp-session-id"];
  return typeof header === "string" ? header : via.legacy.id;
}
