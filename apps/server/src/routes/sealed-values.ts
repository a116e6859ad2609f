import { openValue, type RequestStateCodec, sealValue } from "@roundtrip/sealing";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Values the approval page hands a browser and gets back (the sign-in in progress, the signed-in
 * approver, form tokens), sealed under the request-state keys: any instance that shares the keys opens
 * them, none needs a table of its own. Each is bound to its purpose (`sealValue`'s context) and names
 * its expiry inside the seal, so a value sealed for one use, or a requestState, never opens as another.
 */
export class SealedValues {
  readonly #codec: RequestStateCodec;

  constructor(codec: RequestStateCodec) {
    this.#codec = codec;
  }

  seal(purpose: string, value: Record<string, unknown>, ttlS: number): string {
    const envelope = { exp: Math.floor(Date.now() / 1000) + ttlS, v: value };
    return sealValue(this.#codec, encoder.encode(JSON.stringify(envelope)), purpose);
  }

  /** The value, or undefined when it is not this purpose's, has expired, or was altered. */
  open(purpose: string, sealed: string | undefined): Record<string, unknown> | undefined {
    if (sealed === undefined || sealed === "") return undefined;
    let envelope: unknown;
    try {
      envelope = JSON.parse(decoder.decode(openValue(this.#codec, sealed, purpose)));
    } catch {
      return undefined;
    }
    if (typeof envelope !== "object" || envelope === null) return undefined;
    const { exp, v } = envelope as { exp?: unknown; v?: unknown };
    if (typeof exp !== "number" || exp <= Date.now() / 1000) return undefined;
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  }
}
