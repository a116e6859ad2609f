import { isConnectionReset } from "../transport/connection-reset.js";
import { ResponseStreamClosedError } from "../transport/http-errors.js";
import type { Recovery } from "./recovery.js";

/**
 * The stream broke off or the connection was reset before any answer: a 2026-07-28 request holds no
 * state on the server between attempts, so it may go again.
 */
export const streamResend: Recovery = {
  kind: "stream",
  applies: ({ error }) => error instanceof ResponseStreamClosedError || isConnectionReset(error),
  recover: async () => true,
};
