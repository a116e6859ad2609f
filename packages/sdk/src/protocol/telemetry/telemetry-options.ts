import type { Meter, Tracer } from "@opentelemetry/api";
import { SCOPE_NAME } from "./names.js";
import { loadOtel, type Otel } from "./otel-api.js";

/**
 * Anything with `getTracer`, such as an OpenTelemetry TracerProvider. Typed structurally so that the
 * SDK's declarations never name `@opentelemetry/api`, which an application may not have installed.
 */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** Anything with `getMeter`, such as an OpenTelemetry MeterProvider. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): unknown;
}

/**
 * Spans and metrics through `@opentelemetry/api`. By default they go to the providers the application
 * registered globally (none registered: nothing is recorded); `false` turns them off, and explicit
 * providers take the place of the global ones.
 */
export type TelemetryOption =
  | boolean
  | {
      readonly tracerProvider?: TracerProviderLike;
      readonly meterProvider?: MeterProviderLike;
    };

/** What one side records with, once the API has loaded. */
export interface TelemetryScope {
  readonly otel: Otel;
  readonly tracer: Tracer;
  readonly meter: Meter;
}

/**
 * Resolves a TelemetryOption on each use: the global providers may be registered after a server or
 * client is made, and a meter taken from the global no-op provider would stay a no-op.
 */
export class TelemetrySource {
  readonly #option: TelemetryOption;

  constructor(option: TelemetryOption | undefined) {
    this.#option = option ?? true;
  }

  /** Undefined when telemetry is off or the API is not installed. */
  async scope(): Promise<TelemetryScope | undefined> {
    if (this.#option === false) return undefined;
    const otel = await loadOtel();
    if (otel === undefined) return undefined;
    const explicit = this.#option === true ? {} : this.#option;
    const tracerProvider = explicit.tracerProvider ?? otel.trace.getTracerProvider();
    const meterProvider = explicit.meterProvider ?? otel.metrics.getMeterProvider();
    return {
      otel,
      tracer: tracerProvider.getTracer(SCOPE_NAME) as Tracer,
      meter: meterProvider.getMeter(SCOPE_NAME) as Meter,
    };
  }
}

const instrumentCache = new WeakMap<object, Map<string, unknown>>();

/**
 * The instruments of one kind on a meter, made on first use: providers hand back the same meter for
 * the same scope, so a request reuses its predecessors' instruments instead of registering new ones.
 */
export function instrumentsOf<T>(meter: Meter, kind: string, make: (meter: Meter) => T): T {
  let byKind = instrumentCache.get(meter);
  if (byKind === undefined) {
    byKind = new Map();
    instrumentCache.set(meter, byKind);
  }
  if (!byKind.has(kind)) byKind.set(kind, make(meter));
  return byKind.get(kind) as T;
}
