import { isRepeatableOnSession } from "../../protocol/schemas/legacy.js";
import { isConnectionReset } from "../transport/connection-reset.js";
import type { Recovery } from "./recovery.js";

/** A connection reset on a session: only a request that changes nothing goes twice, as the server may have acted on it. */
export const sessionResend: Recovery = {
  kind: "stream",
  applies: ({ error, method }) => isConnectionReset(error) && isRepeatableOnSession(method),
  recover: async () => true,
};
