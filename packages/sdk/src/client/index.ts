// The client side of @roundtrip/sdk: the Client and its round loop, the input callbacks and the client
// transports. Named exports only.
export type { AuthChallenge, ClientAuthProvider } from "./auth-provider.js";
export type { CacheMode, ResultCacheOptions } from "./cache/result-cache.js";
export {
  type CachedResult,
  MemoryResultCacheStore,
  type MemoryResultCacheStoreOptions,
  type ResultCacheStore,
} from "./cache/result-cache-store.js";
export type {
  CallOptions,
  CarrierCallOptions,
  ListOptions,
  RoundsOptions,
  TaskFollowOptions,
} from "./call-options.js";
export type {
  CapabilityChoices,
  ElicitationMode,
  ElicitCallback,
  ElicitParams,
  InputCallbacks,
  InputRequestContext,
  ListRootsCallback,
  SampleCallback,
} from "./callbacks.js";
export { Client, type ClientOptions, type ClientTarget } from "./client.js";
export type { EraChoice, ProtocolEra, ServerDescription } from "./era/negotiation.js";
export {
  InputCallbackError,
  InputRequestUnsupportedError,
  InputRequiredNotAllowedError,
  InputRequiredRoundsExceededError,
  PaginationError,
  ProtocolViolationError,
  RequestTimeoutError,
  SkillIntegrityError,
  StructuredContentError,
  SubscriptionLostError,
  TaskCancelledError,
  ToolRejectedError,
  VersionNegotiationError,
} from "./errors.js";
export type { ListenEvent, ListenOptions, ListenStream } from "./listen-stream.js";
export type { ListChangedHandler } from "./notification-router.js";
export { DEFAULT_MAX_PAGES, type PageWalk } from "./pagination.js";
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./request-timeout.js";
export type { ToolStart } from "./rounds/carrier-calls.js";
export { type Clock, DEFAULT_MAX_ROUNDS } from "./rounds/input-required-driver.js";
export { type AllowInputRequired, type ManualCallOptions, ManualLoop } from "./rounds/manual-loop.js";
export type { AnsweredBy, RoundTrace, RoundTraceHandler, TracedRequest } from "./rounds/round-trace.js";
export type {
  CarrierCall,
  CarrierParams,
  CarrierResults,
  InputRequiredRound,
  RoundDecision,
  RoundHook,
  RoundsOutcome,
  SavedRound,
} from "./rounds/rounds.js";
export type { SkillFile } from "./skill-files.js";
export type { TaskHandle } from "./tasks/task-handle.js";
export type {
  ClientTransport,
  ServerRequestHandler,
  ServerRequestOrigin,
  TransportRequestOptions,
} from "./transport/client-transport.js";
export {
  ConnectionFailedError,
  type HttpClientOptions,
  HttpClientTransport,
  HttpStatusError,
  RedirectRefusedError,
  ResponseStreamClosedError,
  ResponseTooLargeError,
  SessionExpiredError,
} from "./transport/http-client.js";
export { MemoryClientTransport } from "./transport/memory-client.js";
export {
  StdioClientTransport,
  type StdioRestartOptions,
  type StdioServerParameters,
} from "./transport/stdio-client.js";
