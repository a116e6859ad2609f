// The server side of @roundtrip/sdk: the low-level Server, McpServer and its resolvers, the
// request-state boundary and the server transports. Named exports only.
export type { AuthInfo } from "./auth-info.js";
export type { CachePolicy } from "./cache-policy.js";
export type { NotificationSink, PeerAddress, RequestContext, TransportInfo } from "./context.js";
export { InProcessNotificationBus } from "./fleet/in-process-notification-bus.js";
export { MemoryOnceStore, type MemoryOnceStoreOptions } from "./fleet/memory-once-store.js";
export { MemoryTaskStore } from "./fleet/memory-task-store.js";
export type { BusEvent, BusListener, NotificationBus } from "./fleet/notification-bus.js";
export type {
  OnceLeaseRequest,
  OnceLeaseResult,
  OnceRecord,
  OnceStore,
  OnceTtl,
} from "./fleet/once-store.js";
export type { SessionLimits, SessionRecord, SessionRegistry } from "./fleet/session-registry.js";
export type { TaskRecord, TaskStore } from "./fleet/task-store.js";
export type { CacheableBody, Complete, Handlers } from "./handlers.js";
// The 2025 era is composed here: the Server and McpServer exported are the core's, with that era in.
export { McpServer, Server } from "./legacy/both-eras.js";
export { InMemoryEventStore, type InMemoryEventStoreOptions } from "./legacy/event-store.js";
export type { CacheHint } from "./mcp-server/cache-hints.js";
export type { Completer, Completers, CompletionReturn } from "./mcp-server/completions.js";
export type {
  InputContext,
  McpContext,
  ResourceContext,
  ResourceInputContext,
} from "./mcp-server/context.js";
export {
  type ElicitAnswer,
  type ElicitationSchemaLike,
  type ElicitContent,
  toElicitationSchema,
} from "./mcp-server/elicitation-schema.js";
export type { CanAsk, MixedChannels, StaticResourceAsks } from "./mcp-server/handler-rules.js";
export {
  acceptedContent,
  InputResponseError,
  type InputResponseView,
  inputResponse,
} from "./mcp-server/input-responses.js";
export type {
  McpServerInfo,
  McpServerOptions,
  Registration,
} from "./mcp-server/mcp-server.js";
export type { OnceOptions } from "./mcp-server/once-rounds.js";
export type { PromptConfig, PromptHandler, PromptReturn } from "./mcp-server/prompts.js";
export {
  type AnyResolver,
  ask,
  type DeclineMode,
  type ElicitationOutcome,
  type ElicitQuestion,
  type ElicitUrlQuestion,
  type Question,
  type Resolved,
  type ResolvedValues,
  type Resolver,
  type ResolverCall,
  type ResolverInput,
  type ResolverMap,
  type ResolverOptions,
  type RootsQuestion,
  resolver,
  type SampleQuestion,
  type UrlElicitationOutcome,
} from "./mcp-server/resolvers/resolvers.js";
export type {
  ResourceConfig,
  ResourceContentInput,
  ResourceHandler,
  ResourceHandlerShape,
  ResourceReturn,
  ResourceTemplateHandler,
  ResourceVariables,
  StaticResourceHandler,
  StaticResourceRule,
} from "./mcp-server/resources.js";
export type { Infer as InferSchema, JsonSchema, SchemaLike } from "./mcp-server/schema.js";
export { SkillCatalog, type SkillCatalogOptions, type SkillConfig } from "./mcp-server/skills/catalog.js";
export { type SkillSource, skillsFromDirectory } from "./mcp-server/skills/from-directory.js";
export type { SkillFilesInput } from "./mcp-server/skills/skill-files.js";
export type { ToolResultBody, ToolReturn } from "./mcp-server/tool-result.js";
export type {
  ChannelRule,
  HandBuiltToolHandler,
  NoInput,
  ResolverMapFor,
  ResolverToolHandler,
  ToolConfig,
  ToolHandler,
  ToolHandlerShape,
} from "./mcp-server/tools.js";
export type { Middleware, MiddlewareRequest, ResultObject } from "./middleware.js";
export { DEFAULT_PARAMS_LIMITS, type ParamsLimits } from "./params-limits.js";
export { type RequestStateBoundaryOptions, requestStateBoundary } from "./request-state-boundary.js";
export type {
  BroadcastListener,
  HandledResponse,
  HandleOptions,
  ServerOptions,
  ServerSource,
} from "./server.js";
export type { SubscriptionLimits } from "./subscriptions.js";
export type { TaskBody, TaskControl } from "./tasks/task-run.js";
export type { TaskRunner } from "./tasks/task-runner.js";
export { type CallExecutor, Tasks, type TasksOptions } from "./tasks/tasks.js";
export { ToolError } from "./tool-error.js";
export {
  createFetchHandler,
  type FetchHandlerOptions,
  type FetchMcpHandler,
} from "./transport/fetch-handler.js";
// What an authenticate hook throws to refuse a request with its own status and headers.
export { HttpError } from "./transport/http-errors.js";
export {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandlerOptions,
  type NodeMcpHandler,
} from "./transport/http-server.js";
export { hostAllowed, LOOPBACK_HOST_NAMES, type OriginPolicy } from "./transport/origin-policy.js";
export type { HeaderRecord, RequestHead } from "./transport/request-head.js";
export { type StdioServerOptions, serveStdio } from "./transport/stdio-server.js";
export type {
  EventStore,
  LegacyBridgeOptions,
  LegacyOptions,
  LegacySessionFacts,
} from "./unenveloped-era.js";
