import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../../protocol/schemas/common.js";

/**
 * What a 2025-era session settled at `initialize` (and `logging/setLevel` since): the dispatcher builds
 * each legacy request's RequestMeta from it, so middleware, the capability gate and handlers see the
 * same shapes on both eras.
 */
export interface LegacySessionFacts {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
}
