import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals what a task keeps (questions, answers, result) into the opaque bytes its store holds:
 * AES-256-GCM with the task id as associated data, so bytes moved to another task do not open.
 */
export class TaskSealer {
  readonly #key: Buffer;

  /** `key`: 32 bytes shared by every instance of a fleet; by default one made for this process. */
  constructor(key?: Uint8Array) {
    if (key !== undefined && key.byteLength !== 32) {
      throw new TypeError(`A task sealing key is 32 bytes (AES-256), not ${key.byteLength}`);
    }
    this.#key = key === undefined ? randomBytes(32) : Buffer.from(key);
  }

  seal(taskId: string, value: unknown): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(taskId, "utf8"));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the bytes were not sealed for this task under this key. */
  open(taskId: string, sealed: Uint8Array): unknown {
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(taskId, "utf8"));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString("utf8"));
  }
}
