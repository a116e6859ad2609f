import { AesGcmRequestStateCodec } from "./aes-gcm-codec.js";
import type { RequestStateKey } from "./keys.js";
import { authenticatedPrincipal } from "./principal.js";
import type { RequestStateCodec } from "./request-state-codec.js";
import type { BindPrincipal } from "./request-state-context.js";
import { typeName } from "./type-name.js";

interface PolicyOptions {
  /** Seconds a token stays valid after each round (default 600). Must be positive and finite. */
  readonly ttl?: number;
  /** Principal binding (default `authenticatedPrincipal`); `null` disables it. */
  readonly bindPrincipal?: BindPrincipal | null;
  /** Audience minted into and required from every token; default: the context's (the server name). */
  readonly audience?: string;
}

/** Exactly one of `keys` (built-in AES-256-GCM codec, `keys[0]` mints) or `codec`. */
export type RequestStateSecurityOptions = PolicyOptions &
  (
    | { readonly keys: readonly RequestStateKey[]; readonly codec?: never }
    | { readonly codec: RequestStateCodec; readonly keys?: never }
  );

/** Options of `RequestStateSecurity.ephemeral()`: everything but the key material. */
export type EphemeralRequestStateSecurityOptions = PolicyOptions;

export const DEFAULT_TTL_SECONDS = 600;

/** The checked settings of a policy. Options reach us from JavaScript too, so nothing is trusted. */
export interface PolicySettings {
  readonly codec: RequestStateCodec;
  readonly ttl: number;
  readonly bindPrincipal: BindPrincipal | null;
  readonly audience: string | undefined;
}

export function checkPolicyOptions(options: RequestStateSecurityOptions): PolicySettings {
  return {
    codec: chooseCodec(options),
    ttl: checkTtl(options.ttl),
    bindPrincipal: checkBindPrincipal(options.bindPrincipal),
    audience: checkAudience(options.audience),
  };
}

function chooseCodec(options: RequestStateSecurityOptions): RequestStateCodec {
  const { keys, codec } = (options ?? {}) as { keys?: unknown; codec?: unknown };
  if ((keys === undefined) === (codec === undefined)) {
    throw new TypeError(
      "RequestStateSecurity takes exactly one of keys or codec: pass { keys: [secret] } for the built-in " +
        "AES-256-GCM codec, or { codec } to bring your own",
    );
  }
  if (keys !== undefined) return new AesGcmRequestStateCodec(keys as readonly RequestStateKey[]);
  if (!isCodec(codec)) {
    throw new TypeError(`codec must implement seal(payload) and unseal(token); got ${typeName(codec)}`);
  }
  return codec;
}

function isCodec(value: unknown): value is RequestStateCodec {
  const candidate = value as Partial<RequestStateCodec> | null | undefined;
  return typeof candidate?.seal === "function" && typeof candidate.unseal === "function";
}

function checkTtl(ttl: unknown): number {
  if (ttl === undefined) return DEFAULT_TTL_SECONDS;
  if (typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0) return ttl;
  throw new RangeError(
    `request-state ttl must be a positive finite number, got ${String(ttl)} ` +
      `(it is in seconds; the default is ${DEFAULT_TTL_SECONDS})`,
  );
}

function checkBindPrincipal(bind: unknown): BindPrincipal | null {
  if (bind === undefined) return authenticatedPrincipal;
  if (bind === null || typeof bind === "function") return bind as BindPrincipal | null;
  throw new TypeError(`bindPrincipal must be a function or null (to disable binding); got ${typeName(bind)}`);
}

function checkAudience(audience: unknown): string | undefined {
  if (audience === undefined || audience === null) return undefined;
  if (typeof audience === "string" && audience !== "") return audience;
  throw new TypeError(
    "audience must be a non-empty string, the same on every instance that should accept each other's " +
      `tokens; got ${typeName(audience)}. Omit it to use the server name`,
  );
}
