export { type ApprovalLedger, MemoryApprovalLedger } from "./approvals/approval-ledger.js";
export type {
  ApprovalRecord,
  ApprovalStore,
  ApproveOutcome,
  Approver,
  Rejection,
  RejectOutcome,
  Requester,
} from "./approvals/approval-store.js";
export { SealedApprovalStore, type SealedApprovalStoreOptions } from "./approvals/sealed-approval-store.js";
export { type Authentication, createAuthentication } from "./auth/authentication.js";
export { createTokenVerifier } from "./auth/token-verifier.js";
export { type BuildOptions, buildServer, type RoundtripServer } from "./build-server.js";
export { ConfigError, DEFAULTS, loadConfig } from "./config/load-config.js";
export type {
  AuthConfig,
  HttpConfig,
  IntrospectionConfig,
  KeySourceConfig,
  ServerConfig,
} from "./config/server-config.js";
export { Keyring, type KeyringStatus } from "./keyring/keyring.js";
export { REDACTED_PATHS } from "./logging/redaction.js";
export { createMcpServer, type McpServerSettings } from "./mcp/create-mcp-server.js";
export { closeOnSignals, type ShutdownOptions } from "./shutdown.js";
export { openSharedState, type RedisDeadlines, type SharedState } from "./state/shared-state.js";
export type { StateReadiness } from "./state/write-probe.js";
export { packageVersion } from "./version.js";
