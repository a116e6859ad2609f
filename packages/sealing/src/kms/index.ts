export { SealingError, type SealingErrorCode } from "../sealing-error.js";
export { createKmsRequestStateCodec, type KmsRequestStateCodecOptions } from "./create-kms-codec.js";
export {
  type GenerateWrappedDataKeyOptions,
  generateWrappedDataKey,
  type WrappedDataKey,
} from "./generate-wrapped-key.js";
export type { KmsClientOptions } from "./kms-client.js";
export { KmsRequestStateCodec } from "./kms-codec.js";
export { KmsKeyError } from "./kms-key-error.js";
export { type UnwrapDataKeysOptions, unwrapDataKeys } from "./unwrap-data-keys.js";
