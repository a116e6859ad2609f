import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { openValue, type RequestStateCodec, sealValue } from "@roundtrip/sealing";

const IV_BYTES = 12;
const TAG_BYTES = 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Seals what a task keeps (questions, answers, result, call, round state) into the opaque bytes its
 * store holds, bound to the task id so that bytes moved to another task do not open: AES-256-GCM under
 * a 32-byte key, or the request-state keys of a codec (`sealValue`, rotation included).
 */
export class TaskSealer {
  readonly #key: Buffer | undefined;
  readonly #codec: RequestStateCodec | undefined;

  /**
   * `key`: 32 bytes shared by every instance of a fleet; `codec`: the request-state keys they share
   * instead; neither: a key made for this process.
   */
  constructor(key?: Uint8Array, codec?: RequestStateCodec) {
    if (key !== undefined && codec !== undefined) {
      throw new TypeError("Tasks seal with a key or with a codec, not both: give one");
    }
    if (key !== undefined && key.byteLength !== 32) {
      throw new TypeError(`A task sealing key is 32 bytes (AES-256), not ${key.byteLength}`);
    }
    this.#codec = codec;
    this.#key = codec !== undefined ? undefined : key === undefined ? randomBytes(32) : Buffer.from(key);
  }

  seal(taskId: string, value: unknown): Uint8Array {
    const text = JSON.stringify(value);
    if (this.#codec) return encoder.encode(sealValue(this.#codec, encoder.encode(text), purpose(taskId)));
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key as Buffer, iv);
    cipher.setAAD(Buffer.from(taskId, "utf8"));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the bytes were not sealed for this task under these keys. */
  open(taskId: string, sealed: Uint8Array): unknown {
    if (this.#codec) {
      const opened = openValue(this.#codec, decoder.decode(sealed), purpose(taskId));
      return JSON.parse(decoder.decode(opened));
    }
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.#key as Buffer, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(taskId, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString("utf8"));
  }
}

/** What a task's bytes are sealed for: neither a requestState nor another sealed value opens as them. */
function purpose(taskId: string): string {
  return `roundtrip/task/v1/${taskId}`;
}
