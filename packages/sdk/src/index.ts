// @roundtrip/sdk: every public name of its three layers. Each layer lists its names once, in its own
// entry point (also importable alone: @roundtrip/sdk/protocol, /server, /client). SdkError, the union
// of the errors of all three, is the one name that only the whole SDK can declare.
export * from "./client/index.js";
export * from "./protocol/index.js";
export type { SdkError } from "./sdk-error.js";
export * from "./server/index.js";
