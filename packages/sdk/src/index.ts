export type { AuthInfo } from "./auth-info.js";
export { describeError, type Logger, silentLogger, stderrLogger } from "./logger.js";
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
export {
  type CachePolicy,
  type HandledResponse,
  type HandleOptions,
  Server,
  type ServerOptions,
  type ToolLookup,
} from "./server/server.js";
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
export { LOOPBACK_HOST_NAMES, type OriginPolicy } from "./transport/origin-policy.js";
export { type StdioServerOptions, serveStdio } from "./transport/stdio-server.js";
