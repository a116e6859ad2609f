import { type RequestStateCodec, RequestStateSecurity } from "@roundtrip/sealing";
import { DeferredCodec } from "./deferred-codec.js";
import { type LoadCodecOptions, loadCodec } from "./load-codec.js";

export type KeyringStatus = "loading" | "ready" | "failed";

export interface KeyringOptions extends LoadCodecOptions {
  ttlSeconds: number;
}

/**
 * The request-state keys of this process. The policy exists at once (the MCP server needs it to be
 * built); its keys load in the background, and `ready` settles when they are in place or have failed.
 * There is no fallback: a configured KMS key that cannot be unwrapped leaves the keyring failed.
 */
export class Keyring {
  readonly security: RequestStateSecurity;
  /** Resolves once the keys are installed; rejects with the reason they could not be. */
  readonly ready: Promise<void>;
  readonly #codec = new DeferredCodec();
  #status: KeyringStatus = "loading";

  constructor(options: KeyringOptions) {
    this.security = new RequestStateSecurity({ codec: this.#codec, ttl: options.ttlSeconds });
    this.ready = this.#load(options);
    // Observed here so a failure is never an unhandled rejection; callers still see it through `ready`.
    this.ready.catch(() => {});
  }

  /**
   * The same keys for the approval page's cookies and form tokens, so they are good on every instance
   * that shares the keys. What it seals names its purpose, so nothing sealed for one use opens as another.
   */
  get codec(): RequestStateCodec {
    return this.#codec;
  }

  get status(): KeyringStatus {
    return this.#status;
  }

  async #load(options: KeyringOptions): Promise<void> {
    try {
      this.#codec.install(await loadCodec(options));
      this.#status = "ready";
    } catch (error) {
      this.#status = "failed";
      const message = error instanceof Error ? error.message : String(error);
      options.logger.error(
        { keySource: options.source.kind, reason: message },
        "request-state keys failed to load",
      );
      throw error;
    }
  }
}
