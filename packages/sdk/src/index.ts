// @roundtrip/sdk: every public name of its three layers. Each layer lists its names once, in its own
// entry point (also importable alone: @roundtrip/sdk/protocol, /server, /client).
export * from "./client/index.js";
export * from "./protocol/index.js";
export * from "./server/index.js";
