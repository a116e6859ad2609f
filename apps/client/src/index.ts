export { type LoopbackLogin, startLoopbackLogin } from "./auth/loopback-login.js";
export { FileTokenStore } from "./auth/token-store.js";
export { main } from "./cli.js";
export { CliError, EXIT_CODE_MEANINGS, ExitCode, type ExitCodeValue } from "./exit-codes.js";
export { type PendingFlow, PendingStore } from "./pending-store.js";
export { safeInline } from "./terminal/safe-text.js";
