import type { Meter, Tracer } from "@opentelemetry/api";
import { SCOPE_NAME } from "./names.js";
import { loadedOtel, loadOtel, type Otel } from "./otel-api.js";

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
  /** False while the tracer is the API's no-op: spans would record nothing, so none are built. */
  readonly tracing: boolean;
  /** False while the meter is the API's no-op: metric attributes would be built for nothing. */
  readonly metering: boolean;
}

/** The providers a scope was resolved from: the same pair gives the same scope. */
interface Resolved {
  readonly tracerProvider: unknown;
  readonly delegate: unknown;
  readonly meterProvider: unknown;
  readonly scope: TelemetryScope;
}

/**
 * Resolves a TelemetryOption on each use: the global providers may be registered after a server or
 * client is made, and a meter taken from the global no-op provider would stay a no-op. The scope is
 * kept while the providers stay the same, so a request costs a few identity checks, not a lookup.
 */
export class TelemetrySource {
  readonly #option: TelemetryOption;
  #resolved: Resolved | undefined;

  constructor(option: TelemetryOption | undefined) {
    this.#option = option ?? true;
  }

  /** Undefined when telemetry is off or the API is not installed. */
  async scope(): Promise<TelemetryScope | undefined> {
    if (this.#option === false) return undefined;
    const otel = await loadOtel();
    return otel === undefined ? undefined : this.#resolve(otel);
  }

  /**
   * The scope without waiting once the API has loaded (the common case: a request need not yield to
   * learn it); `null` until the first load has finished, when the caller awaits `scope()`.
   */
  scopeNow(): TelemetryScope | undefined | null {
    if (this.#option === false) return undefined;
    const otel = loadedOtel();
    return otel === null ? null : otel === undefined ? undefined : this.#resolve(otel);
  }

  #resolve(otel: Otel): TelemetryScope {
    const explicit = this.#option === true || this.#option === false ? {} : this.#option;
    const tracerProvider = explicit.tracerProvider ?? otel.trace.getTracerProvider();
    const meterProvider = explicit.meterProvider ?? otel.metrics.getMeterProvider();
    // The global tracer provider is a proxy whose delegate arrives when an SDK registers.
    const delegate =
      tracerProvider instanceof otel.ProxyTracerProvider ? tracerProvider.getDelegate() : tracerProvider;
    const resolved = this.#resolved;
    if (
      resolved?.tracerProvider === tracerProvider &&
      resolved.delegate === delegate &&
      resolved.meterProvider === meterProvider
    ) {
      return resolved.scope;
    }
    const meter = meterProvider.getMeter(SCOPE_NAME) as Meter;
    const scope: TelemetryScope = {
      otel,
      tracer: tracerProvider.getTracer(SCOPE_NAME) as Tracer,
      meter,
      tracing: delegate !== noopTracerProvider(otel),
      metering: meter !== otel.createNoopMeter(),
    };
    this.#resolved = { tracerProvider, delegate, meterProvider, scope };
    return scope;
  }
}

/** The provider an unset proxy delegates to: the API exports no name for it, so a fresh proxy tells. */
let noopProvider: unknown;
function noopTracerProvider(otel: Otel): unknown {
  noopProvider ??= new otel.ProxyTracerProvider().getDelegate();
  return noopProvider;
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
