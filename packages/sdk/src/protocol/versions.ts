/** The protocol revision this SDK speaks. */
export const LATEST_PROTOCOL_VERSION = "2026-07-28";

/** Modern revisions only: a legacy (pre-2026) version cannot travel in per-request `_meta`. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION];

/** Revisions that open with `initialize`; named in the error a modern-only server gives them. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

export const JSONRPC_VERSION = "2.0";

/** Reserved `_meta` keys of the 2026-07-28 envelope. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
