/** The protocol revision this SDK speaks. */
export const LATEST_PROTOCOL_VERSION = "2026-07-28";

/** Modern revisions only: a legacy (pre-2026) version cannot travel in per-request `_meta`. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION];

/** The newest revision that opens with `initialize`: what a dual-era peer offers a legacy one. */
export const LATEST_LEGACY_PROTOCOL_VERSION = "2025-11-25";

/**
 * Revisions that open with `initialize` and that this SDK serves and speaks on a session, newest
 * first. 2024-11-05 predates Streamable HTTP and is not among them.
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_LEGACY_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
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
