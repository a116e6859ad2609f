import {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./versions.js";

/**
 * The two protocol eras: "modern" is 2026-07-28 (no handshake, `_meta` on every request,
 * input_required results); "legacy" is 2025-11-25, 2025-06-18 and 2025-03-26 (`initialize`, a
 * session, server-to-client requests).
 */
export type ProtocolEra = "modern" | "legacy";

/** What negotiation needs of an era: its versions, the one a peer opens it with, its name in errors. */
export interface EraFacts {
  /** The versions of the era this SDK speaks, newest first. */
  readonly versions: readonly string[];
  /** The version a peer of this SDK opens the era with. */
  readonly latest: string;
  /** How errors name a server of the era. */
  readonly label: string;
}

export const ERAS: Readonly<Record<ProtocolEra, EraFacts>> = {
  modern: {
    versions: SUPPORTED_PROTOCOL_VERSIONS,
    latest: LATEST_PROTOCOL_VERSION,
    label: "2026-07-28",
  },
  legacy: {
    versions: LEGACY_PROTOCOL_VERSIONS,
    latest: LATEST_LEGACY_PROTOCOL_VERSION,
    label: "2025-era",
  },
};

/** Every version this SDK speaks, newest first: what a failed negotiation names. */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [
  ...SUPPORTED_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

/** The era a version belongs to, if this SDK speaks it. */
export function eraOfVersion(version: unknown): ProtocolEra | undefined {
  if (typeof version !== "string") return undefined;
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return "modern";
  return LEGACY_PROTOCOL_VERSIONS.includes(version) ? "legacy" : undefined;
}

/** Whether a version names a revision served on an `initialize` session. */
export function isLegacyProtocolVersion(version: unknown): boolean {
  return eraOfVersion(version) === "legacy";
}

/**
 * Legacy revisions that predate the MCP-Protocol-Version header: their clients never send it, so a
 * session of one of these is served without it.
 */
export const LEGACY_VERSIONS_WITHOUT_VERSION_HEADER: readonly string[] = ["2025-03-26"];

/**
 * Whether an HTTP request at this version must carry the MCP-Protocol-Version header: every 2026-07-28
 * request (equal to its `_meta` version) and every session of a revision that has the header.
 */
export function requiresVersionHeader(version: string): boolean {
  return !LEGACY_VERSIONS_WITHOUT_VERSION_HEADER.includes(version);
}
