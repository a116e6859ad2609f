import { ALL_PROTOCOL_VERSIONS, ERAS, eraOfVersion } from "../../protocol/eras.js";
import { notification } from "../../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation } from "../../protocol/schemas/common.js";
import {
  type InitializeResult,
  InitializeResultSchema,
  LegacyMethod,
  MODERN_ONLY_RESULT_FIELDS,
} from "../../protocol/schemas/legacy.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import { ProtocolViolationError, VersionNegotiationError } from "../errors.js";
import type { ClientTransport } from "../transport/client-transport.js";

/** Sends one request without the 2026-07-28 envelope and returns its result (JSON-RPC errors throw McpError). */
export type LegacyRequester = (
  method: string,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/**
 * The capabilities a 2025-era session declares once, in initialize: the ones the callbacks declare on
 * every 2026-07-28 request, with roots able to announce changes (notifications/roots/list_changed).
 */
export function sessionCapabilities(declared: ClientCapabilities): ClientCapabilities {
  const capabilities: ClientCapabilities = { ...declared };
  if (capabilities.roots) capabilities.roots = { ...capabilities.roots, listChanged: true };
  return capabilities;
}

/** Whether a transport can carry a 2025-era session: it must answer server requests and hold headers. */
export function canHoldSession(transport: ClientTransport): boolean {
  return typeof transport.startSession === "function" && typeof transport.notify === "function";
}

/**
 * Opens a 2025-era session: initialize at the newest 2025 version, accept the server's choice if it
 * is one this client speaks, then notifications/initialized. A 2026-07-28-only server that names its
 * version surfaces as VersionNegotiationError, which the era negotiation reads; `request` turns the
 * version error it may answer with instead into the same.
 */
export async function openLegacySession(
  transport: ClientTransport,
  request: LegacyRequester,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
): Promise<InitializeResult> {
  if (!canHoldSession(transport)) {
    throw new TypeError(
      `The ${transport.kind} transport cannot carry a 2025-era session (it has no startSession/notify); use a URL or a command as the target, or era: "modern"`,
    );
  }
  const raw = await request(LegacyMethod.initialize, {
    protocolVersion: ERAS.legacy.latest,
    capabilities: sessionCapabilities(capabilities),
    clientInfo,
  });
  const parsed = InitializeResultSchema.safeParse(raw);
  if (!parsed.success) throw new ProtocolViolationError(LegacyMethod.initialize, firstIssue(parsed.error));
  const result = parsed.data;
  if (eraOfVersion(result.protocolVersion) !== "legacy") {
    await transport.endSession?.();
    throw new VersionNegotiationError([result.protocolVersion], ALL_PROTOCOL_VERSIONS);
  }
  transport.startSession?.(result.protocolVersion);
  await transport.notify?.(notification(LegacyMethod.initialized));
  transport.listen?.();
  return result;
}

/**
 * A 2025-era result read for callers of either era: it has no resultType (it is complete) and none
 * of the modern-only fields mean anything on a session, so a server that sends them is ignored there.
 */
export function legacyResult(method: string, raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.resultType !== undefined && raw.resultType !== "complete") {
    throw new ProtocolViolationError(
      method,
      `resultType ${JSON.stringify(raw.resultType)} on a 2025-era session, where every result is complete; the server mixes protocol eras`,
    );
  }
  const result = { ...raw };
  for (const field of MODERN_ONLY_RESULT_FIELDS) delete result[field];
  return result;
}
