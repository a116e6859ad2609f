/**
 * Which request of its call a carrier request is (1 for the first), told by the rounds loop to the
 * request pipeline's telemetry without a field on the wire: keyed by the params object it sends.
 */
const rounds = new WeakMap<object, number>();

export function markRound(params: object, round: number): void {
  rounds.set(params, round);
}

export function roundOf(params: object): number | undefined {
  return rounds.get(params);
}
