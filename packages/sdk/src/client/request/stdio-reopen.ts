import { raceAbort } from "../transport/client-transport.js";
import { StdioClientTransport } from "../transport/stdio-client.js";
import type { BeforeSend } from "./recovery.js";

/**
 * Before each attempt on a 2025-era session: a stdio server restarted since the session opened has
 * forgotten it, so a new one is opened first. Returns the check, which counts the restarts it has seen.
 */
export function stdioReopen(): BeforeSend {
  let seen = 0;
  return ({ transport, negotiation }, signal) => {
    if (!(transport instanceof StdioClientTransport) || transport.restarts === seen) return undefined;
    seen = transport.restarts;
    return raceAbort(negotiation.reopen(negotiation.generation), signal);
  };
}
