import type * as OtelApi from "@opentelemetry/api";

/** The `@opentelemetry/api` module, once it has loaded. */
export type Otel = typeof OtelApi;

/**
 * `@opentelemetry/api` is an optional peer: an application without it must still load the SDK, so
 * nothing imports it statically and its absence simply means no telemetry.
 */
export async function importOptional<T>(specifier: string): Promise<T | undefined> {
  try {
    return (await import(specifier)) as T;
  } catch {
    return undefined;
  }
}

let loading: Promise<Otel | undefined> | undefined;
let loaded: Otel | undefined | null = null;

/** The API, or undefined when the application has not installed it; loaded once per process. */
export function loadOtel(): Promise<Otel | undefined> {
  loading ??= importOptional<Otel>("@opentelemetry/api").then((otel) => {
    loaded = otel;
    return otel;
  });
  return loading;
}

/** What `loadOtel` settled on, or `null` while it has not (or was never asked to). */
export function loadedOtel(): Otel | undefined | null {
  return loaded;
}
