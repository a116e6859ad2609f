import { ALL_PROTOCOL_VERSIONS, eraOfVersion, type ProtocolEra } from "../protocol/eras.js";
import { ErrorCode, McpError } from "../protocol/errors.js";
import type { ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation } from "../protocol/schemas/common.js";
import { ProtocolViolationError, VersionNegotiationError } from "./errors.js";
import { HttpStatusError } from "./transport/http-errors.js";
import { mutualVersion, supportedVersionsOf } from "./version-negotiation.js";

export type { ProtocolEra };

/** How a Client picks its era: "auto" probes the server; the others speak one era only. */
export type EraChoice = "auto" | ProtocolEra;

/** What connecting settled: the era and version both sides speak, and what the server said of itself. */
export interface ServerDescription {
  era: ProtocolEra;
  protocolVersion: string;
  /** What server/discover offered, or the one version initialize settled on. */
  supportedVersions: readonly string[];
  /** Undefined when the probe was skipped (`knownEra: "modern"`) and no server/discover was sent. */
  capabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
}

const legacy = (version: string) => eraOfVersion(version) === "legacy";

/** Statuses with which servers of the 2025 era refuse a method they do not know, without JSON-RPC. */
const LEGACY_REFUSALS = new Set([400, 404, 405, 406, 415, 422]);

/**
 * Whether a failed server/discover says "I am a 2025-era server": any JSON-RPC error (-32601 Method
 * not found, a session-less request refused), a version error naming only versions we speak on a
 * session, a 4xx refusal without JSON-RPC, a 200 that is not JSON-RPC, or a result that is not a
 * discover result. Credentials refused (401, 403), server failures (5xx) and network errors are not
 * era answers: they reach the caller as they are.
 */
export function isLegacyAnswer(error: unknown): boolean {
  if (error instanceof VersionNegotiationError) {
    return error.serverVersions.some(legacy);
  }
  if (error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion) {
    const supported = supportedVersionsOf(error.data);
    return mutualVersion(supported) === undefined && supported.some(legacy);
  }
  if (error instanceof McpError || error instanceof ProtocolViolationError) return true;
  if (error instanceof HttpStatusError) return error.status < 300 || LEGACY_REFUSALS.has(error.status);
  return false;
}

/**
 * Whether a failed initialize says "I speak 2026-07-28 only": the version error a modern server
 * answers initialize with, naming a modern version we speak.
 */
export function isModernAnswer(error: unknown): boolean {
  return (
    error instanceof VersionNegotiationError &&
    error.serverVersions.some((version) => eraOfVersion(version) === "modern")
  );
}

/** The error for a server that answered neither era's opening: names both sides' versions and a way on. */
export function noCommonEra(
  url: string,
  discoverFailure: unknown,
  initializeFailure: unknown,
): VersionNegotiationError {
  const offered = [discoverFailure, initializeFailure].flatMap((error) =>
    error instanceof VersionNegotiationError ? error.serverVersions : [],
  );
  return new VersionNegotiationError([...new Set(offered)], ALL_PROTOCOL_VERSIONS, {
    detail: `${url} answered server/discover with ${describe(discoverFailure)} and initialize with ${describe(initializeFailure)}; check that the URL or command is an MCP server's`,
    cause: initializeFailure,
  });
}

function describe(error: unknown): string {
  if (error instanceof McpError) return `JSON-RPC error ${error.code} "${error.message}"`;
  if (error instanceof HttpStatusError) return `HTTP ${error.status}`;
  if (error instanceof Error) return `"${error.message}"`;
  return String(error);
}
