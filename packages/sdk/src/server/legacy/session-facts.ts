import { McpError } from "../../protocol/errors.js";
import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation } from "../../protocol/schemas/common.js";
import { jsonBytes } from "../params-limits.js";

/** The facts of a session whose size its client chooses; the others are flags and short enumerations. */
export interface ClientChosenFacts {
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo?: Implementation | undefined;
  readonly subscriptions: Iterable<string>;
}

/**
 * The most a session's client-chosen facts may weigh as JSON. A server keeps them for as long as the
 * session lives, up to `maxSessionsPerPrincipal` times per principal, and a fleet keeps them in Redis:
 * without this bound one principal's sessions could fill the store to its `maxmemory`.
 */
export const MAX_SESSION_FACTS_BYTES = 64 * 1024;

/**
 * Refuses facts beyond MAX_SESSION_FACTS_BYTES with -32602, saying what to send instead. Called
 * before the facts are held or stored, so a refused initialize or subscribe changes nothing.
 */
export function checkSessionFacts(facts: ClientChosenFacts): void {
  let bytes = jsonBytes(facts.clientCapabilities) + jsonBytes(facts.clientInfo ?? null);
  for (const uri of facts.subscriptions) bytes += jsonBytes(uri);
  if (bytes <= MAX_SESSION_FACTS_BYTES) return;
  throw McpError.invalidParams(
    `Invalid params: this session's capabilities, clientInfo and resource subscriptions come to ${bytes} bytes as JSON, beyond this server's limit of ${MAX_SESSION_FACTS_BYTES} bytes; initialize with only the capabilities the client uses (icons by URL, not inline), or unsubscribe from resources it no longer follows`,
  );
}
