import { isLegacyAnswer } from "../era/negotiation.js";
import { raceAbort } from "../transport/client-transport.js";
import type { Recovery } from "./recovery.js";

/**
 * A request sent on the modern guess of prior knowledge met a 2025-era answer: open a session and send
 * it again. A 2026-07-28 server refusing initialize confirms the guess, and the first error stands.
 */
export const eraFallback: Recovery = {
  kind: "era",
  applies: ({ unconfirmed, error }) => unconfirmed && isLegacyAnswer(error),
  recover: ({ signal }, { negotiation }) => raceAbort(negotiation.reconsider(), signal),
};
