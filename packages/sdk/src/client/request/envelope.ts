import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../../protocol/schemas/common.js";
import { META } from "../../protocol/versions.js";

/** What a request says of itself besides its params; each era puts on the wire what it has room for. */
export interface Envelope {
  /** The caller's own `_meta` keys. */
  readonly extra: Record<string, unknown> | undefined;
  readonly progressToken: string | undefined;
  readonly protocolVersion: string;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
  readonly logLevel: LoggingLevel | undefined;
}

/** A 2026-07-28 request's `_meta`: with no handshake, each request names the version, capabilities and client. */
export function envelopeMeta(envelope: Envelope): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    ...envelope.extra,
    [META.protocolVersion]: envelope.protocolVersion,
    [META.clientCapabilities]: envelope.capabilities,
    [META.clientInfo]: envelope.clientInfo,
  };
  if (envelope.logLevel !== undefined) meta[META.logLevel] = envelope.logLevel;
  if (envelope.progressToken !== undefined) meta.progressToken = envelope.progressToken;
  return meta;
}

/** A 2025-era request's `_meta`: the session holds the rest, so only a progressToken or the caller's keys. */
export function sessionMeta(envelope: Envelope): Record<string, unknown> | undefined {
  if (envelope.extra === undefined && envelope.progressToken === undefined) return undefined;
  const meta: Record<string, unknown> = { ...envelope.extra };
  if (envelope.progressToken !== undefined) meta.progressToken = envelope.progressToken;
  return meta;
}
