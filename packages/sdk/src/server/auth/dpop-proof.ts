import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, type JWTPayload, jwtVerify } from "jose";
import type { OnceStore } from "../fleet/once-store.js";
import { DpopNonceError, InvalidDpopProofError } from "./errors.js";
import { DEFAULT_JWT_ALGORITHMS } from "./jwt-verifier.js";

/**
 * The same asymmetric algorithms as access tokens: a proof is verified with the key it carries, so a
 * symmetric one would prove nothing (jose's EmbeddedJWK refuses symmetric keys as well).
 */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = DEFAULT_JWT_ALGORITHMS;

export interface DpopProofVerifierOptions {
  /**
   * The URL clients send their requests to (this server's canonical MCP endpoint). A proof's `htu` must
   * name it; the request's own Host header is never trusted for this, since a client chooses it.
   */
  resourceUrl: string | URL;
  /** Accepted proof `alg` values. Default DEFAULT_DPOP_ALGORITHMS; `none` and `HS*` are refused. */
  algorithms?: readonly string[];
  /** How far a proof's `iat` may be from this server's clock, either way. Default 60 s. */
  iatWindowSec?: number;
  /** Most proof ids remembered for replay detection in this process. Default 100 000. */
  replayCacheSize?: number;
  /**
   * Where proof ids are remembered instead of this process: each id is claimed once for the rest of
   * its `iat` window. A `RedisOnceStore` (from `@roundtrip/sdk/redis`, with a prefix of its own) shared
   * by a fleet refuses a proof replayed to any instance; the default, this process's memory, refuses it
   * only on the instance that saw it first. A store that throws fails the request (closed).
   */
  replayStore?: DpopReplayStore;
  /**
   * Server nonces (RFC 9449 §9): a proof must carry a recent `nonce` from this server, so one made
   * ahead of time by a thief of the key is useless. Nonces are derived from `secret` and the time, so
   * every instance sharing the secret accepts them; each is good for one to two `lifetimeSec` (300 s).
   */
  nonce?: { secret: string; lifetimeSec?: number };
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/** What proof replay detection needs of a store: the claim of a OnceStore. */
export type DpopReplayStore = Pick<OnceStore, "claim">;

export interface DpopProofInput {
  /** The DPoP header value. */
  proof: string;
  /** The request's method. */
  method: string;
  /** The access token presented with the proof, whose hash the proof's `ath` must be. */
  accessToken: string;
  /** The `cnf.jkt` of the verified token: the thumbprint of the key it is bound to. */
  boundThumbprint: string;
}

export interface DpopProofVerifier {
  /** The accepted algorithms, for the `algs` parameter of a DPoP challenge. */
  readonly algorithms: readonly string[];
  /** The nonce proofs must carry now, when nonces are configured. */
  currentNonce(): string | undefined;
  /** Resolves with the proof key's thumbprint, or throws InvalidDpopProofError naming the failed check. */
  verify(input: DpopProofInput): Promise<string>;
}

/** RFC 9449 §4.3: scheme and host compare case-insensitively, default ports drop, query and fragment do not count. */
function normalizedHtu(value: string | URL): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return `${url.origin}${url.pathname}`;
}

function checkedAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0)
    throw new TypeError("algorithms must name at least one DPoP signing algorithm");
  const refused = algorithms.filter((alg) => alg === "none" || /^HS\d+$/i.test(alg));
  if (refused.length > 0) {
    throw new TypeError(
      `algorithms ${refused.join(", ")} cannot sign DPoP proofs; use asymmetric ones (e.g. ES256, EdDSA)`,
    );
  }
  return [...algorithms];
}

/** Time-slot nonces: `<slot>.<HMAC(secret, slot)>`, accepted for the current slot and the one before. */
function nonceIssuer(options: { secret: string; lifetimeSec?: number }, now: () => number) {
  if (Buffer.byteLength(options.secret) < 32) {
    throw new TypeError(
      "nonce.secret must be at least 32 bytes; generate one with `openssl rand -base64 32`",
    );
  }
  const lifetimeMs = (options.lifetimeSec ?? 300) * 1000;
  if (!(lifetimeMs > 0)) throw new TypeError("nonce.lifetimeSec must be a positive number of seconds");
  const mac = (slot: number) =>
    createHmac("sha256", options.secret).update(`dpop-nonce:${slot}`).digest("base64url");
  const forSlot = (slot: number) => `${slot}.${mac(slot)}`;
  return {
    current: () => forSlot(Math.floor(now() / lifetimeMs)),
    accepts(nonce: unknown): boolean {
      if (typeof nonce !== "string") return false;
      const slot = Math.floor(now() / lifetimeMs);
      return [slot, slot - 1].some((candidate) => {
        const expected = Buffer.from(forSlot(candidate));
        const given = Buffer.from(nonce);
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
    },
  };
}

/**
 * Proof ids seen within the iat window, per key, when no replayStore is given. Bounded: when full, the
 * ones whose window has passed go first, then the oldest.
 */
class ReplayCache {
  readonly #seen = new Map<string, number>();
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  /** False when the id was already seen and is still within its window. */
  remember(id: string, untilMs: number, nowMs: number): boolean {
    const until = this.#seen.get(id);
    if (until !== undefined && until > nowMs) return false;
    this.#seen.delete(id);
    if (this.#seen.size >= this.maxEntries) this.#evict(nowMs);
    this.#seen.set(id, untilMs);
    return true;
  }

  #evict(nowMs: number) {
    for (const [id, until] of this.#seen) if (until <= nowMs) this.#seen.delete(id);
    while (this.#seen.size >= this.maxEntries) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
  }
}

/**
 * Checks RFC 9449 §4.3 for DPoP proofs sent to this resource server: the header (typ `dpop+jwt`, an
 * accepted asymmetric alg, a public `jwk`), the signature by that key, `htm`, `htu`, `iat` within the
 * window, `ath`, a fresh `jti`, and that the key is the one the token is bound to.
 */
export function dpopProofVerifier(options: DpopProofVerifierOptions): DpopProofVerifier {
  const htu = normalizedHtu(options.resourceUrl);
  if (htu === undefined) throw new TypeError("resourceUrl must be this server's absolute http(s) URL");
  const algorithms = checkedAlgorithms(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS);
  const windowSec = options.iatWindowSec ?? 60;
  if (!(windowSec > 0)) throw new TypeError("iatWindowSec must be a positive number of seconds");
  const replays = new ReplayCache(options.replayCacheSize ?? 100_000);
  const { replayStore } = options;
  const now = options.now ?? Date.now;
  const nonces = options.nonce === undefined ? undefined : nonceIssuer(options.nonce, now);

  return {
    algorithms,
    currentNonce: () => nonces?.current(),
    async verify(input) {
      let payload: JWTPayload;
      let jwk: JWK | undefined;
      try {
        const verified = await jwtVerify(input.proof, EmbeddedJWK, {
          algorithms,
          typ: "dpop+jwt",
          currentDate: new Date(now()),
        });
        payload = verified.payload;
        jwk = verified.protectedHeader.jwk;
      } catch (error) {
        const reason = error instanceof Error ? error.message : "unreadable";
        throw new InvalidDpopProofError(
          `The DPoP proof is not a valid dpop+jwt signed by its jwk: ${reason}`,
        );
      }
      // EmbeddedJWK has already refused a jwk holding a private or symmetric key; it always returns one.
      if (jwk === undefined) throw new InvalidDpopProofError("The DPoP proof has no jwk header");
      if (payload.htm !== input.method) {
        throw new InvalidDpopProofError(
          `The DPoP proof was made for another method (htm must be ${input.method})`,
        );
      }
      if (typeof payload.htu !== "string" || normalizedHtu(payload.htu) !== htu) {
        throw new InvalidDpopProofError(`The DPoP proof was made for another URL (htu must be ${htu})`);
      }
      const nowSec = now() / 1000;
      if (typeof payload.iat !== "number" || Math.abs(nowSec - payload.iat) > windowSec) {
        throw new InvalidDpopProofError(
          `The DPoP proof's iat is not within ${windowSec} s of this server's clock; make a fresh proof per request`,
        );
      }
      const ath = createHash("sha256").update(input.accessToken).digest("base64url");
      if (payload.ath !== ath) {
        throw new InvalidDpopProofError(
          "The DPoP proof's ath is missing or is not the hash of the access token sent with it",
        );
      }
      const thumbprint = await calculateJwkThumbprint(jwk, "sha256");
      if (thumbprint !== input.boundThumbprint) {
        throw new InvalidDpopProofError(
          "The DPoP proof is signed by a key the access token is not bound to (cnf.jkt mismatch)",
        );
      }
      if (nonces && !nonces.accepts(payload.nonce)) {
        throw new DpopNonceError(
          "The DPoP proof must carry the nonce in this response's DPoP-Nonce header; make a new proof with it",
          nonces.current(),
        );
      }
      if (typeof payload.jti !== "string" || payload.jti === "" || payload.jti.length > 256) {
        throw new InvalidDpopProofError("The DPoP proof has no usable jti");
      }
      const id = `${thumbprint}:${payload.jti}`;
      const until = (payload.iat + windowSec) * 1000;
      const fresh = replayStore
        ? await replayStore.claim(id, "dpop", Math.max(1, Math.ceil(until - now())))
        : replays.remember(id, until, now());
      if (!fresh) {
        throw new InvalidDpopProofError(
          "The DPoP proof was already used (jti replayed); make a fresh proof per request",
        );
      }
      return thumbprint;
    },
  };
}
