import {
  INVALID_REQUEST_STATE_ERROR,
  InvalidRequestState,
  type RequestStateContext,
  type RequestStateRequest,
  RequestStateSealError,
  type RequestStateSecurity,
} from "@roundtrip/sealing";
import { carrierTarget, isCarrierMethod } from "../protocol/carriers.js";
import { McpError } from "../protocol/errors.js";
import { describeError, type Logger, stderrLogger } from "../protocol/logger.js";
import type { RequestContext } from "./context.js";
import type { Middleware } from "./middleware.js";
import { sealedLayer } from "./request-state-layers.js";
import { currentRound } from "./telemetry/round-record.js";

export interface RequestStateBoundaryOptions {
  /**
   * The audience claim when the policy sets none: normally the server's name, so two services
   * sharing a key still cannot accept each other's state. `null` binds no audience.
   */
  defaultAudience: string | null;
  logger?: Logger;
  /** The current time in unix seconds (fractional). Defaults to the system clock; tests pin it. */
  now?: () => number;
}

/** The single error every rejected requestState gets: the real reason goes to the log only. */
export function invalidRequestStateError(): McpError {
  const { code, message, data } = INVALID_REQUEST_STATE_ERROR;
  return new McpError(code, message, { ...data });
}

/**
 * What a token is bound to: the method, the tool or prompt name (or the exact resource URI) and the
 * raw wire arguments. Undefined when the target is not a string: such a request never reaches a
 * handler, so no state can have been minted for it.
 */
function requestBinding(method: string, params: Record<string, unknown>): RequestStateRequest | undefined {
  const target = carrierTarget(method, params);
  if (target === undefined) return undefined;
  return method === "resources/read" ? { method, target } : { method, target, arguments: params.arguments };
}

function identityOf(context: RequestContext) {
  const auth = context.auth;
  return auth
    ? { clientId: auth.clientId, issuer: auth.issuer ?? null, subject: auth.subject ?? null }
    : undefined;
}

/**
 * The request-state boundary: on tools/call, prompts/get and resources/read it verifies every inbound
 * `requestState` before anything else sees it (handlers get the plaintext) and seals every outbound
 * one in a fresh envelope, bound to the request, the audience and the authenticated principal: the
 * outermost of the layers in request-state-layers.ts. Add it first, so that later middleware and
 * handlers work with plaintext.
 *
 * Every rejection is the one frozen error (`-32602 Invalid or expired requestState`) plus one
 * warning that names the reason; a failure to seal is `-32603 Internal error` plus one error line.
 * The boundary never logs the token, the plaintext or the principal; an exception thrown by the codec
 * or by `bindPrincipal` is logged by name and message, so keep secrets out of those.
 */
export function requestStateBoundary(
  security: RequestStateSecurity,
  options: RequestStateBoundaryOptions,
): Middleware {
  const logger = options.logger ?? stderrLogger;
  const audience = options.defaultAudience;
  const clock = options.now;

  const reject = (method: string, error: unknown): McpError => {
    // A RequestStateRejection from the policy or a built-in codec; a custom codec may name its own.
    const reason: InvalidRequestState["reason"] =
      error instanceof InvalidRequestState ? error.reason : "codec error";
    // A codec that fails with anything but InvalidRequestState is broken, not attacked: say how.
    const cause = error instanceof InvalidRequestState ? error.cause : error;
    const detail = cause === undefined ? {} : describeError(cause);
    logger.warn({ method, reason, ...detail }, `requestState rejected on ${method}: ${reason}`);
    currentRound()?.refused(reason);
    return invalidRequestStateError();
  };

  return async (request, next) => {
    const { method, context } = request;
    if (!isCarrierMethod(method)) return next();
    const binding = requestBinding(method, request.params);
    const sealContext = (): RequestStateContext => ({
      identity: identityOf(context),
      audience,
      ...(clock ? { now: clock() } : {}),
    });

    // A requestState null never arrives: the Server reads it as absent before any middleware runs.
    const inbound = request.params.requestState;
    const round = currentRound();
    if (inbound !== undefined) {
      if (binding === undefined) throw reject(method, new InvalidRequestState("request binding"));
      let opened: { state: string; trail: string | undefined };
      try {
        opened = sealedLayer.open(security, inbound, binding, sealContext());
      } catch (error) {
        throw reject(method, error);
      }
      round?.continued(opened.trail, true);
      request.params = { ...request.params, requestState: opened.state };
    } else {
      round?.continued(undefined, false);
    }

    const result = await next();
    if (result.resultType !== "input_required" || typeof result.requestState !== "string") return result;
    try {
      if (binding === undefined) throw new Error("the request names no tool, prompt or resource");
      return {
        ...result,
        requestState: sealedLayer.seal(security, result.requestState, binding, {
          ...sealContext(),
          trail: round?.trailToSeal(),
        }),
      };
    } catch (error) {
      logger.error({ method, ...sealFailure(error) }, `refusing to seal requestState on ${method}`);
      throw McpError.internal();
    }
  };
}

/** The log fields of a failed seal: the policy's reason and whatever the binding or codec threw. */
function sealFailure(error: unknown): Record<string, unknown> {
  if (!(error instanceof RequestStateSealError)) return describeError(error);
  return { reason: error.reason, ...describeError(error.cause ?? error) };
}
