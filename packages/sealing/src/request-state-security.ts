import { randomBytes } from "node:crypto";
import { checkPrincipal, checkTimes, derivePrincipal, type PrincipalFailure } from "./claim-checks.js";
import { parseClaims, serializeClaims } from "./claims.js";
import { sealWithCodec, unsealWithCodec } from "./codec-calls.js";
import { rejectRequestState } from "./invalid-request-state.js";
import {
  checkPolicyOptions,
  type EphemeralRequestStateSecurityOptions,
  type RequestStateSecurityOptions,
} from "./policy-options.js";
import { principalClaim } from "./principal.js";
import { type RandomSource, systemRandom } from "./random-source.js";
import { bindingMatches, requestDigest } from "./request-binding.js";
import type { RequestStateCodec } from "./request-state-codec.js";
import {
  type BindPrincipal,
  type OpenedRequestState,
  type RequestStateContext,
  type RequestStateRequest,
  TRAIL_MAX_LENGTH,
} from "./request-state-context.js";
import { RequestStateSealError } from "./request-state-seal-error.js";
import { typeName } from "./type-name.js";

let setSaltSource: (policy: RequestStateSecurity, source: RandomSource) => void;

const sealFailure: PrincipalFailure = {
  threw: (cause) => new RequestStateSealError("bindPrincipal threw", { cause }),
  returned: (description) => new RequestStateSealError(description),
};
const openFailure: PrincipalFailure = {
  threw: (cause) => rejectRequestState("principal binding error", { cause }),
  returned: (description) => rejectRequestState(description),
};

/**
 * How a server protects the requestState it hands to clients: seals the handler's plaintext in a
 * claims envelope (expiry, method, target, arguments digest, audience, principal) and, on the echo,
 * opens and checks all of it before any handler runs. Every failure to open is an
 * `InvalidRequestState` whose reason is for the log only; every failure to seal is a
 * `RequestStateSealError`.
 */
export class RequestStateSecurity {
  readonly codec: RequestStateCodec;
  /** Seconds each round's token stays valid. */
  readonly ttl: number;
  readonly bindPrincipal: BindPrincipal | null;
  /** The audience every token carries; undefined defers to the context's (the server name). */
  readonly audience: string | undefined;
  #random: RandomSource = systemRandom;

  static {
    setSaltSource = (policy, source) => {
      policy.#random = source;
    };
  }

  constructor(options: RequestStateSecurityOptions) {
    ({
      codec: this.codec,
      ttl: this.ttl,
      bindPrincipal: this.bindPrincipal,
      audience: this.audience,
    } = checkPolicyOptions(options));
  }

  /**
   * A policy under a fresh random 32-byte key that lives only in this process: fine for one instance,
   * but tokens do not survive a restart and other instances refuse them. Pass `keys` for a fleet.
   */
  static ephemeral(options: EphemeralRequestStateSecurityOptions = {}): RequestStateSecurity {
    const key = randomBytes(32);
    try {
      return new RequestStateSecurity({ ...options, keys: [key] });
    } finally {
      key.fill(0);
    }
  }

  /** Seals a handler's plaintext state for this request. Throws `RequestStateSealError`. */
  seal(state: string, request: RequestStateRequest, context: RequestStateContext = {}): string {
    const now = context.now ?? Date.now() / 1000;
    checkSealInputs(state, request, now);
    checkTrail(context.trail);
    const principal = derivePrincipal(this.bindPrincipal, context, sealFailure);
    const audience = this.#audience(context);
    const claims = serializeClaims({
      v: 1,
      iat: now,
      exp: now + this.ttl,
      m: request.method,
      t: request.target,
      a: sealDigest(request),
      s: state,
      aud: audience ?? undefined,
      p: principal === null ? undefined : principalClaim(principal, this.#random),
      o: context.trail,
    });
    // serializeClaims escapes everything outside ASCII, so latin1 is the exact UTF-8 here.
    return sealWithCodec(this.codec, Buffer.from(claims, "latin1"));
  }

  /**
   * Verifies an echoed requestState for this request and returns the plaintext state. Throws
   * `InvalidRequestState` at the first failing check, in the reference order.
   */
  open(token: unknown, request: RequestStateRequest, context: RequestStateContext = {}): string {
    return this.openWithTrail(token, request, context).state;
  }

  /**
   * As `open`, with the trail the token was sealed with. A token sealed without one, or by a minter
   * that wrote something else there, opens with an undefined trail: the trail never fails a request.
   */
  openWithTrail(
    token: unknown,
    request: RequestStateRequest,
    context: RequestStateContext = {},
  ): OpenedRequestState {
    if (typeof token !== "string") throw rejectRequestState("non-string requestState");
    const claims = parseClaims(unsealWithCodec(this.codec, token));
    checkTimes(claims, context.now ?? Date.now() / 1000, this.ttl);
    if (!bindingMatches(claims, request)) throw rejectRequestState("request binding");
    if ((claims.aud ?? null) !== this.#audience(context)) throw rejectRequestState("audience");
    checkPrincipal(claims, derivePrincipal(this.bindPrincipal, context, openFailure));
    return { state: claims.s, trail: typeof claims.o === "string" ? claims.o : undefined };
  }

  #audience(context: RequestStateContext): string | null {
    return this.audience ?? context.audience ?? null;
  }
}

/**
 * Internal, for test vectors only (not exported by the package): pins the principal-claim salts.
 * Production tokens must use fresh salts, or two tokens of one user become linkable.
 */
export function pinSaltSource(policy: RequestStateSecurity, source: RandomSource): void {
  setSaltSource(policy, source);
}

function checkSealInputs(state: unknown, request: RequestStateRequest, now: number): void {
  if (typeof state !== "string")
    throw new RequestStateSealError(`state is ${typeName(state)}, expected string`);
  if (typeof request.method !== "string" || typeof request.target !== "string") {
    throw new RequestStateSealError("request method and target must be strings");
  }
  if (!Number.isFinite(now)) throw new RequestStateSealError("clock is not a finite number");
}

function checkTrail(trail: unknown): void {
  if (trail === undefined) return;
  if (typeof trail !== "string")
    throw new RequestStateSealError(`trail is ${typeName(trail)}, expected string`);
  if (trail.length > TRAIL_MAX_LENGTH) {
    throw new RequestStateSealError(
      `trail is ${trail.length} characters, at most ${TRAIL_MAX_LENGTH} allowed`,
    );
  }
}

function sealDigest(request: RequestStateRequest): string {
  try {
    return requestDigest(request);
  } catch (error) {
    throw new RequestStateSealError("arguments are not JSON", { cause: error });
  }
}
