import { ErrorCode } from "../../protocol/errors.js";
import { errorResponse } from "../../protocol/jsonrpc.js";
import { envelopeMeta } from "../request/envelope.js";
import { streamResend } from "../request/stream-resend.js";
import { toolHeadersRelist } from "../request/tool-headers-relist.js";
import { versionSwitch } from "../request/version-switch.js";
import type { Era } from "./era.js";

/** 2026-07-28: no session, the envelope on every request, input_required rounds, listen streams. */
export function modernEra(): Era {
  return {
    paramHeaders: true,
    wireParams: (params, envelope) => ({ ...params, _meta: envelopeMeta(envelope) }),
    result: (_method, raw) => raw,
    refuseRoundFields: () => {},
    refuseListen: () => {},
    // 2026-07-28 forbids server-to-client requests.
    answer: async (request) =>
      errorResponse(request.id, {
        code: ErrorCode.MethodNotFound,
        message: `A 2026-07-28 client answers no server requests (${request.method})`,
      }),
    // The server asks for the roots each time it needs them.
    rootsChanged: async () => {},
    beforeSend: () => undefined,
    recoveries: [versionSwitch, toolHeadersRelist, streamResend],
  };
}
