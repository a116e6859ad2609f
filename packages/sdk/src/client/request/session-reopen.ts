import { raceAbort } from "../transport/client-transport.js";
import { SessionExpiredError } from "../transport/http-errors.js";
import type { Recovery } from "./recovery.js";

/** The 2025-era session expired (404): open a new one, once for all the requests that met the old one. */
export const sessionReopen: Recovery = {
  kind: "session",
  applies: ({ error }) => error instanceof SessionExpiredError,
  recover: async ({ generation, signal }, { negotiation }) => {
    await raceAbort(negotiation.reopen(generation), signal);
    return true;
  },
};
