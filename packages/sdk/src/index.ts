export type { AuthChallenge, ClientAuthProvider } from "./client/auth-provider.js";
export type { CallOptions, CarrierCallOptions } from "./client/call-options.js";
export type {
  CapabilityChoices,
  ElicitationMode,
  ElicitCallback,
  ElicitParams,
  InputCallbacks,
  InputRequestContext,
  ListRootsCallback,
  SampleCallback,
} from "./client/callbacks.js";
export { Client, type ClientOptions, type ClientTarget, type ListOptions } from "./client/client.js";
export {
  InputCallbackError,
  InputRequestUnsupportedError,
  InputRequiredNotAllowedError,
  InputRequiredRoundsExceededError,
  ProtocolViolationError,
  ToolRejectedError,
  VersionNegotiationError,
} from "./client/errors.js";
export {
  type Clock,
  DEFAULT_MAX_ROUNDS,
  INITIAL_BACKOFF_MS,
  type InputRequiredLoop,
  MAX_BACKOFF_MS,
  type RetryFields,
  realClock,
  runInputRequiredLoop,
} from "./client/input-required-driver.js";
export { type AllowInputRequired, type ManualCallOptions, ManualLoop } from "./client/manual-loop.js";
export type { ClientTransport, TransportRequestOptions } from "./client/transport/client-transport.js";
export {
  type HttpClientOptions,
  HttpClientTransport,
  HttpStatusError,
  ResponseStreamClosedError,
} from "./client/transport/http-client.js";
export { MemoryClientTransport } from "./client/transport/memory-client.js";
export { StdioClientTransport, type StdioServerParameters } from "./client/transport/stdio-client.js";
export {
  decodeHeaderValue,
  encodeHeaderValue,
  HEADER,
  type HeaderParam,
  headerParamsOf,
  paramHeaders,
} from "./protocol/http-headers.js";
export * from "./protocol/index.js";
export {
  createMessage,
  elicitForm,
  elicitUrl,
  type InputRequiredSpec,
  inputRequired,
  isInputRequiredResult,
  listRoots,
} from "./protocol/input-required.js";
export { describeError, type Logger, silentLogger, stderrLogger } from "./protocol/logger.js";
export { type AbortSource, RequestAbort } from "./protocol/request-abort.js";
export type { AuthInfo } from "./server/auth-info.js";
export { assertCapabilitiesFor, missingCapabilityFor } from "./server/capability-gate.js";
export type { NotificationSink, RequestContext, TransportInfo } from "./server/context.js";
export type { CacheableBody, Complete, Handlers } from "./server/handlers.js";
export type {
  InputContext,
  McpContext,
  ResourceContext,
  ResourceInputContext,
} from "./server/mcp/context.js";
export {
  type ElicitAnswer,
  type ElicitationSchemaLike,
  type ElicitContent,
  parseElicitContent,
  toElicitationSchema,
} from "./server/mcp/elicitation-schema.js";
export {
  acceptedContent,
  InputResponseError,
  type InputResponseView,
  inputResponse,
} from "./server/mcp/input-responses.js";
export {
  McpServer,
  type McpServerInfo,
  type McpServerOptions,
  type Registration,
  UNNAMED_SERVER,
} from "./server/mcp/mcp-server.js";
export type { PromptConfig, PromptHandler, PromptReturn } from "./server/mcp/prompts.js";
export {
  type AnyResolver,
  ask,
  type DeclineMode,
  type ElicitationOutcome,
  type ElicitQuestion,
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
} from "./server/mcp/resolvers.js";
export type {
  ResourceConfig,
  ResourceContentInput,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateHandler,
  ResourceVariables,
  StaticResourceHandler,
} from "./server/mcp/resources.js";
export type { Infer as InferSchema, JsonSchema, SchemaLike } from "./server/mcp/schema.js";
export type { ToolResultBody, ToolReturn } from "./server/mcp/tool-result.js";
export type {
  HandBuiltToolHandler,
  NoInput,
  ResolverMapFor,
  ResolverToolHandler,
  ToolConfig,
  ToolHandler,
} from "./server/mcp/tools.js";
export { compileUriTemplate, type UriTemplate } from "./server/mcp/uri-template.js";
export type { Middleware, MiddlewareRequest, ResultObject } from "./server/middleware.js";
export {
  invalidRequestStateError,
  type RequestStateBoundaryOptions,
  requestStateBoundary,
} from "./server/request-state-boundary.js";
export {
  type CachePolicy,
  type HandledResponse,
  type HandleOptions,
  Server,
  type ServerOptions,
  type ServerSource,
  serverOf,
  type ToolLookup,
} from "./server/server.js";
export { HttpError, statusForError } from "./server/transport/http-errors.js";
export {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandlerOptions,
  type NodeMcpHandler,
} from "./server/transport/http-server.js";
export { LOOPBACK_HOST_NAMES, type OriginPolicy } from "./server/transport/origin-policy.js";
export { type StdioServerOptions, serveStdio } from "./server/transport/stdio-server.js";
