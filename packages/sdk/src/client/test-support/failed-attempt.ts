import { vi } from "vitest";
import type { FailedAttempt, RecoveryContext } from "../request/recovery.js";
import type { ClientTransport } from "../transport/client-transport.js";

/** A failed attempt of a tools/list on the first session, nothing else said of it. */
export function failedAttempt(error: unknown, fields: Partial<FailedAttempt> = {}): FailedAttempt {
  return {
    error,
    method: "tools/list",
    generation: 1,
    unconfirmed: false,
    sentParamHeaders: false,
    signal: undefined,
    ...fields,
  };
}

/** A context whose negotiation and relisting only record how the recoveries call them. */
export function recoveryContext(
  transport: ClientTransport = { kind: "http", request: vi.fn(), close: vi.fn() },
) {
  return {
    negotiation: {
      generation: 1,
      reconsider: vi.fn(async () => true),
      reopen: vi.fn(async (_generation: number) => {}),
      switchVersion: vi.fn((_data: unknown) => {}),
    },
    transport,
    relistTools: vi.fn(async (_signal: AbortSignal | undefined) => {}),
  } satisfies RecoveryContext;
}

/** What fetch throws when the connection closed under the request. */
export function connectionReset(): TypeError {
  return new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
}
