// The protocol layer of @roundtrip/sdk: wire types, the few schemas a peer validates what it receives
// with, versions, errors and the facts of multi round-trip requests. Named exports only: an internal
// helper stays internal until it is added here on purpose.

export { type ParsedBearerChallenge, parseBearerChallenge } from "./auth/challenge.js";
export {
  CARRIER_METHODS,
  type CarrierMethod,
  carrierTarget,
  isCarrierMethod,
} from "./carriers.js";
export {
  ErrorCode,
  type JsonRpcErrorObject,
  McpError,
} from "./errors.js";
export { decodeHeaderValue, HEADER } from "./http-headers.js";
export type { InProcessServer } from "./in-process-server.js";
export {
  createMessage,
  elicitForm,
  elicitUrl,
  type InputRequiredSpec,
  inputRequired,
  isInputRequiredResult,
  listRoots,
} from "./input-required.js";
export { jsonSchemaValidator } from "./json-schema-validation.js";
export type {
  InboundMessage,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
  ServerMessage,
} from "./jsonrpc.js";
export { type Logger, silentLogger, stderrLogger } from "./logger.js";
export { isLoopbackHost } from "./loopback.js";
export { type AbortSource, RequestAbort } from "./request-abort.js";
export type {
  ClientCapabilities,
  ServerCapabilities,
} from "./schemas/capabilities.js";
export type {
  Annotations,
  CacheScope,
  Icon,
  Implementation,
  JsonObject,
  LoggingLevel,
  ProgressToken,
  RequestId,
  ResultType,
  Role,
} from "./schemas/common.js";
export type {
  CompleteParams,
  CompleteResult,
} from "./schemas/completion.js";
export type {
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  SamplingMessageContentBlock,
  TextContent,
  TextResourceContents,
  ToolResultContent,
  ToolUseContent,
} from "./schemas/content.js";
export type { DiscoverResult } from "./schemas/discover.js";
export type {
  EmptyResult,
  RequestMeta,
} from "./schemas/envelope.js";
export {
  type CreateMessageRequest,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  CreateMessageResultSchema,
  type ElicitationSchema,
  type ElicitRequest,
  type ElicitRequestFormParams,
  type ElicitRequestUrlParams,
  type ElicitResult,
  ElicitResultSchema,
  type InputRequest,
  InputRequestSchema,
  type InputRequests,
  type InputRequiredResult,
  InputRequiredResultSchema,
  type InputResponse,
  type InputResponses,
  type ListRootsRequest,
  type ListRootsResult,
  ListRootsResultSchema,
  type ModelPreferences,
  type PrimitiveSchemaDefinition,
  type Root,
  type SamplingMessage,
} from "./schemas/input-required.js";
export {
  type ElicitationCompleteParams,
  type InitializeParams,
  type InitializeResult,
  LegacyMethod,
  type SetLevelParams,
  type SubscribeParams,
} from "./schemas/legacy.js";
export {
  type CancelledParams,
  type LoggingMessageParams,
  NotificationMethod,
  type ProgressParams,
  type SubscriptionFilter,
} from "./schemas/notifications.js";
export {
  type GetPromptResult,
  GetPromptResultSchema,
  type ListPromptsResult,
  type Prompt,
  type PromptArgument,
  type PromptMessage,
} from "./schemas/prompts.js";
export type {
  CallToolParams,
  GetPromptParams,
  ListenParams,
  PaginatedParams,
  ReadResourceParams,
  RequestMethod,
  RequestParams,
} from "./schemas/requests.js";
export {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
} from "./schemas/resources.js";
export {
  type GetSkillParams,
  type GetSkillResult,
  GetSkillResultSchema,
  type ListSkillsResult,
  ListSkillsResultSchema,
  type ReadResourceDirectoryParams,
  type ReadResourceDirectoryResult,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResource,
  type SkillsCapability,
} from "./schemas/skills.js";
export {
  type CreateTaskResult,
  CreateTaskResultSchema,
  type DetailedTask,
  type GetTaskResult,
  GetTaskResultSchema,
  isTerminalTaskStatus,
  TASKS_EXTENSION,
  type Task,
  type TaskAckResult,
  type TaskIdParams,
  type TaskStatus,
  type TaskStatusNotificationParams,
  type TaskSupport,
  type UpdateTaskParams,
} from "./schemas/tasks.js";
export {
  type CallToolResult,
  CallToolResultSchema,
  type ListToolsResult,
  type Tool,
  type ToolAnnotations,
  ToolSchema,
} from "./schemas/tools.js";
export { SdkError, type SdkErrorCode } from "./sdk-error.js";
export {
  DIRECTORY_MIME_TYPE,
  SKILL_MANIFEST,
  SKILL_URI_SCHEME,
  SKILLS_EXTENSION,
  skillDigest,
  skillUri,
} from "./skills.js";
export type {
  MeterProviderLike,
  TelemetryOption,
  TracerProviderLike,
} from "./telemetry/telemetry-options.js";
export {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  META,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./versions.js";
