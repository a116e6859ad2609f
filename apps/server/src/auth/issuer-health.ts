import type { Logger } from "@roundtrip/sdk/protocol";
import { fetchAuthorizationServerMetadata } from "@roundtrip/sdk/resource-server";
import type { AuthConfig } from "../config/server-config.js";

export type IssuerStatus =
  | { readonly state: "checking" }
  | { readonly state: "reachable" }
  | { readonly state: "unreachable"; readonly url: string; readonly reason: string };

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;

/** A failure as an operator reads it: the fetch's own cause (ECONNREFUSED, a DNS error), not "fetch failed". */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const message = typeof cause?.message === "string" ? cause.message : undefined;
  if (message !== undefined)
    return code === undefined || message.includes(code) ? message : `${code}: ${message}`;
  if (code !== undefined) return code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether the authorization server answers: checked at startup, and again whenever a token could not
 * be verified for want of it, until it answers. Until then `/readyz` says which URL failed and why,
 * and token checks answer 503 rather than 500. What is probed is what verification needs: the JWKS
 * URI when one is configured, the introspection endpoint when tokens are introspected, otherwise the
 * issuer's metadata (RFC 8414, then OpenID discovery).
 */
export class IssuerHealth {
  readonly #auth: AuthConfig;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch;
  #status: IssuerStatus = { state: "checking" };
  #timer: NodeJS.Timeout | undefined;
  #probing: Promise<void> | undefined;
  #retryMs = FIRST_RETRY_MS;
  #closed = false;

  constructor(auth: AuthConfig, logger: Logger, options: { fetch?: typeof fetch } = {}) {
    this.#auth = auth;
    this.#logger = logger;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  get status(): IssuerStatus {
    return this.#status;
  }

  /** The URL the probe asks, named in every report. */
  get url(): string {
    return this.#auth.jwksUri ?? this.#auth.introspection?.endpoint ?? this.#auth.issuer;
  }

  /** Starts the first check; resolves when it has an answer, either way. */
  start(): Promise<void> {
    return this.#probe();
  }

  /** A verification failed without an answer from the authorization server: look again until it answers. */
  reportFailure(error: unknown): void {
    if (this.#status.state === "unreachable") return;
    this.#fail(causeOf(error));
    this.#retryMs = FIRST_RETRY_MS;
    this.#schedule();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #probe(): Promise<void> {
    this.#probing ??= this.#check()
      .then(
        () => {
          if (this.#status.state !== "reachable") {
            this.#logger.info({ authorizationServer: this.url }, "authorization server reachable");
          }
          this.#status = { state: "reachable" };
          this.#retryMs = FIRST_RETRY_MS;
        },
        (error: unknown) => {
          this.#fail(causeOf(error));
          this.#schedule();
        },
      )
      .finally(() => {
        this.#probing = undefined;
      });
    return this.#probing;
  }

  async #check(): Promise<void> {
    const { jwksUri, introspection, issuer, allowInsecureHttp } = this.#auth;
    if (jwksUri === undefined && introspection === undefined) {
      await fetchAuthorizationServerMetadata(issuer, {
        allowInsecureHttp,
        fetch: this.#fetch,
        timeoutMs: 5_000,
      });
      return;
    }
    // Any HTTP answer means it is there; whether the request was acceptable is verification's business.
    const response = await this.#fetch(this.url, {
      method: introspection !== undefined && jwksUri === undefined ? "POST" : "GET",
      redirect: "error",
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
  }

  #fail(reason: string): void {
    const wasReachable = this.#status.state !== "unreachable";
    this.#status = { state: "unreachable", url: this.url, reason };
    if (wasReachable) {
      this.#logger.error(
        { authorizationServer: this.url, reason },
        "the authorization server is unreachable: tokens cannot be verified, so /readyz and authenticated calls answer 503 until it answers; check OAUTH_ISSUER (and OAUTH_JWKS_URI or OAUTH_INTROSPECTION_URL) and the network path",
      );
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#probe(), this.#retryMs);
    this.#timer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, LAST_RETRY_MS);
  }
}
