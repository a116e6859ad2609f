import type { AuthChallenge } from "../auth-provider.js";

/**
 * How many refusals of one request are worth answering. A server that keeps refusing fresh tokens must
 * not send the user through sign-in forever: at most one renewal of a stale token, one sign-in, and
 * `maxStepUps` 403 insufficient_scope step-ups per request, counted per endpoint.
 */
export class ChallengeBudget {
  readonly #maxStepUps: number;
  /** Step-ups taken by the request being retried, per endpoint (reset by a request's first refusal). */
  readonly #stepUps = new Map<string, number>();

  constructor(maxStepUps: number) {
    this.#maxStepUps = maxStepUps;
  }

  /** Whether to answer this refusal; a step-up is counted against the request's budget. */
  admits(challenge: AuthChallenge, stepUp: boolean): boolean {
    const href = challenge.resource.href;
    if (challenge.attempt === 1) this.#stepUps.set(href, 0);
    if (stepUp) {
      const taken = (this.#stepUps.get(href) ?? 0) + 1;
      this.#stepUps.set(href, taken);
      if (taken > this.#maxStepUps) return false;
    } else if (challenge.attempt > 2) {
      return false;
    }
    return challenge.attempt <= this.#maxStepUps + 2;
  }

  clear(): void {
    this.#stepUps.clear();
  }
}
