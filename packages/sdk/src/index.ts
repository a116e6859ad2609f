export type { AuthInfo } from "./auth-info.js";
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
export type { ClientTransport, TransportRequestOptions } from "./client/transport.js";
export { describeError, type Logger, silentLogger, stderrLogger } from "./logger.js";
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
  parseElicitContent,
  toElicitationSchema,
} from "./mcp-server/elicitation-schema.js";
export {
  acceptedContent,
  InputResponseError,
  type InputResponseView,
  inputResponse,
} from "./mcp-server/input-responses.js";
export {
  McpServer,
  type McpServerInfo,
  type McpServerOptions,
  type Registration,
  UNNAMED_SERVER,
} from "./mcp-server/mcp-server.js";
export type { PromptConfig, PromptHandler, PromptReturn } from "./mcp-server/prompts.js";
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
} from "./mcp-server/resolvers.js";
export type {
  ResourceConfig,
  ResourceContentInput,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateHandler,
  ResourceVariables,
  StaticResourceHandler,
} from "./mcp-server/resources.js";
export type { Infer as InferSchema, JsonSchema, SchemaLike } from "./mcp-server/schema.js";
export type { ToolResultBody, ToolReturn } from "./mcp-server/tool-result.js";
export type {
  HandBuiltToolHandler,
  NoInput,
  ResolverMapFor,
  ResolverToolHandler,
  ToolConfig,
  ToolHandler,
} from "./mcp-server/tools.js";
export { compileUriTemplate, type UriTemplate } from "./mcp-server/uri-template.js";
export * from "./protocol/index.js";
export { assertCapabilitiesFor, missingCapabilityFor } from "./server/capability-gate.js";
export type { NotificationSink, RequestContext, TransportInfo } from "./server/context.js";
export type { CacheableBody, Complete, Handlers } from "./server/handlers.js";
export {
  createMessage,
  elicitForm,
  elicitUrl,
  type InputRequiredSpec,
  inputRequired,
  isInputRequiredResult,
  listRoots,
} from "./server/input-required.js";
export type { Middleware, MiddlewareRequest, ResultObject } from "./server/middleware.js";
export { type AbortSource, RequestAbort } from "./server/request-abort.js";
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
export {
  type HttpClientOptions,
  HttpClientTransport,
  HttpStatusError,
  ResponseStreamClosedError,
} from "./transport/http-client.js";
export { HttpError, statusForError } from "./transport/http-errors.js";
export {
  decodeHeaderValue,
  encodeHeaderValue,
  HEADER,
  type HeaderParam,
  headerParamsOf,
  paramHeaders,
} from "./transport/http-headers.js";
export {
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandlerOptions,
  type NodeMcpHandler,
} from "./transport/http-server.js";
export { MemoryClientTransport } from "./transport/memory-client.js";
export { LOOPBACK_HOST_NAMES, type OriginPolicy } from "./transport/origin-policy.js";
export { StdioClientTransport, type StdioServerParameters } from "./transport/stdio-client.js";
export { type StdioServerOptions, serveStdio } from "./transport/stdio-server.js";
