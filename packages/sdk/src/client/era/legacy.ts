import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { JSONRPC_VERSION } from "../../protocol/versions.js";
import { sessionMeta } from "../request/envelope.js";
import { sessionReopen } from "../request/session-reopen.js";
import { sessionResend } from "../request/session-resend.js";
import { stdioReopen } from "../request/stdio-reopen.js";
import type { Era } from "./era.js";
import { legacyResult } from "./legacy-session.js";

/**
 * The 2025 era: a session opened with initialize, server-to-client requests answered by the callbacks,
 * no input_required rounds and no listen streams. Each client gets its own, which counts the stdio
 * server's restarts.
 */
export function legacyEra(): Era {
  return {
    paramHeaders: false,
    wireParams: (params, envelope) => {
      const meta = sessionMeta(envelope);
      return meta === undefined ? params : { ...params, _meta: meta };
    },
    result: legacyResult,
    refuseRoundFields: (method, { inputResponses, requestState }, server) => {
      if (inputResponses === undefined && requestState === undefined) return;
      throw new TypeError(
        `${method} was given inputResponses or requestState, but ${server.where()} speaks the 2025 era (${server.protocolVersion}), which has no input_required rounds: the server asks through requests during the call and the onElicit, onSample and onListRoots callbacks answer them; call again without them`,
      );
    },
    refuseListen: (server) => {
      throw new TypeError(
        `${server.where()} speaks the 2025 era (${server.protocolVersion}), which has no subscriptions/listen: its list changes reach the onListChanged callback`,
      );
    },
    answer: (request, origin, responder) => responder.answer(request, origin),
    rootsChanged: async (transport) => {
      await transport.notify?.({ jsonrpc: JSONRPC_VERSION, method: LegacyMethod.rootsListChanged });
    },
    beforeSend: stdioReopen(),
    recoveries: [sessionResend, sessionReopen],
  };
}
