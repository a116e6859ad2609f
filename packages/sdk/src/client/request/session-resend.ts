import { isConnectionReset } from "../transport/connection-reset.js";
import type { Recovery } from "./recovery.js";

/** 2025-era requests that change nothing on the server, so that a reset connection may carry them again. */
const REPEATABLE_ON_SESSION: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/get",
  "completion/complete",
]);

/** A connection reset on a session: only a request that changes nothing goes twice, as the server may have acted on it. */
export const sessionResend: Recovery = {
  kind: "stream",
  applies: ({ error, method }) => isConnectionReset(error) && REPEATABLE_ON_SESSION.has(method),
  recover: async () => true,
};
