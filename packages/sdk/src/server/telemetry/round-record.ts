import { AsyncLocalStorage } from "node:async_hooks";
import type { Attributes, Counter, Histogram, Meter, Span } from "@opentelemetry/api";
import { ATTR, METRIC, ROUND_BUCKETS } from "../../protocol/telemetry/names.js";
import { instrumentsOf, type TelemetryScope } from "../../protocol/telemetry/telemetry-options.js";
import { newFlowId, type RoundTrail, readTrail, writeTrail } from "./round-trail.js";

/** How a once round's claim on the ledger came out. */
export type OnceOutcome = "ran" | "replayed" | "refused";

interface RoundInstruments {
  rounds: Histogram;
  refusals: Counter;
  onceOutcomes: Counter;
}

function makeInstruments(meter: Meter): RoundInstruments {
  return {
    rounds: meter.createHistogram(METRIC.rounds, {
      description: "Requests one tools/call, prompts/get or resources/read took to complete",
      unit: "{round}",
      advice: { explicitBucketBoundaries: [...ROUND_BUCKETS] },
    }),
    refusals: meter.createCounter(METRIC.refusals, {
      description: "Echoed requestStates the server refused, by the reason only its log and metrics know",
      unit: "{request}",
    }),
    onceOutcomes: meter.createCounter(METRIC.onceOutcomes, {
      description: "Rounds of once handlers by how their claim on the once ledger came out",
      unit: "{round}",
    }),
  };
}

/**
 * The round one server request is, as the request-state boundary and the once rounds learn it: they
 * report here, and the dispatch span takes the flow and round when the request ends. Reached through
 * the request's async context, so neither stage needs a telemetry handle of its own.
 */
export class RoundRecord {
  readonly #scope: TelemetryScope;
  readonly #span: Span | undefined;
  readonly #attributes: Attributes;
  #trail: RoundTrail | undefined;

  /** `span`: undefined when only metrics record. `attributes`: the method and target, on every round metric. */
  constructor(scope: TelemetryScope, span: Span | undefined, attributes: Attributes) {
    this.#scope = scope;
    this.#span = span;
    this.#attributes = attributes;
  }

  /** What the request records with, for the work it leaves running (a task's body). */
  get scope(): TelemetryScope {
    return this.#scope;
  }

  /** The request's span; undefined when only metrics record. */
  get span(): Span | undefined {
    return this.#span;
  }

  /** The method and what it names: tool, prompt or resource. */
  get target(): Attributes {
    return this.#attributes;
  }

  get #instruments(): RoundInstruments {
    return instrumentsOf(this.#scope.meter, "rounds", makeInstruments);
  }

  /**
   * The echoed state's trail (undefined: a first round, or a state sealed without one): this round
   * continues its flow and links to the round that sealed it.
   */
  continued(sealed: string | undefined, echoed: boolean): void {
    quietly(undefined, () => this.#continue(sealed, echoed));
  }

  #continue(sealed: string | undefined, echoed: boolean): void {
    const previous = readTrail(sealed);
    this.#trail = { flowId: previous?.flowId ?? newFlowId(), round: previous ? previous.round + 1 : 1 };
    // A state from an older release has no trail: its flow goes on under a new id, round unknown.
    if (echoed && previous === undefined) this.#trail = { ...this.#trail, round: 0 };
    // addLink came in API 1.9; a tracer from an older SDK may lack it, and must not fail the round.
    if (previous?.span && typeof this.#span?.addLink === "function") {
      this.#span.addLink({ context: { ...previous.span, isRemote: true } });
    }
  }

  refused(reason: string): void {
    quietly(undefined, () =>
      this.#instruments.refusals.add(1, { ...this.#attributes, [ATTR.refusalReason]: reason }),
    );
  }

  once(outcome: OnceOutcome): void {
    quietly(undefined, () =>
      this.#instruments.onceOutcomes.add(1, { ...this.#attributes, [ATTR.onceOutcome]: outcome }),
    );
  }

  /** What the outbound state carries for the next round. */
  trailToSeal(): string | undefined {
    return quietly(undefined, () => this.#trailToSeal());
  }

  #trailToSeal(): string | undefined {
    if (this.#trail === undefined) return undefined;
    const context = this.#span?.spanContext();
    const recorded = context !== undefined && this.#scope.otel.trace.isSpanContextValid(context);
    return writeTrail(recorded ? { ...this.#trail, span: context } : this.#trail);
  }

  /** The flow's attributes for the span, and its length once the flow is complete. */
  finish(resultType: unknown): Attributes | undefined {
    const trail = this.#trail;
    if (trail === undefined) return undefined;
    const known = trail.round > 0;
    if (known && resultType === "complete") this.#instruments.rounds.record(trail.round, this.#attributes);
    return { [ATTR.flowId]: trail.flowId, ...(known ? { [ATTR.round]: trail.round } : {}) };
  }
}

/** A provider that throws costs the measurement, never the round being served. */
function quietly<T>(fallback: T, work: () => T): T {
  try {
    return work();
  } catch {
    return fallback;
  }
}

const current = new AsyncLocalStorage<RoundRecord>();

/** Runs one request's work with its record reachable. */
export function withRoundRecord<T>(record: RoundRecord, work: () => T): T {
  return current.run(record, work);
}

/** The record of the request being served, or undefined when telemetry is off. */
export function currentRound(): RoundRecord | undefined {
  return current.getStore();
}
