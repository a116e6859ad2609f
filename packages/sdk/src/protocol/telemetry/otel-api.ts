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

/** The API, or undefined when the application has not installed it; loaded once per process. */
export function loadOtel(): Promise<Otel | undefined> {
  loading ??= importOptional<Otel>("@opentelemetry/api");
  return loading;
}
