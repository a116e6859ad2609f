// @roundtrip/sdk: what a first program needs, a server that asks its user for input and a client that
// answers, by name. Everything else stays on the entry point of its layer (@roundtrip/sdk/protocol,
// /server, /client) and the others in package.json; docs/entry-points.md lists each. AnySdkError, the
// union of the errors of all three layers, is the one name only the whole SDK can declare.

export type { AnySdkError } from "./any-sdk-error.js";
export {
  type CallOptions,
  Client,
  type ClientOptions,
  type ElicitParams,
  HttpClientTransport,
  MemoryResultCacheStore,
  PaginationError,
  type ProtocolEra,
  type RoundTrace,
  type SavedRound,
  StdioClientTransport,
  StructuredContentError,
} from "./client/index.js";
export {
  type CallToolResult,
  type CreateMessageResult,
  createMessage,
  type ElicitationSchema,
  type ElicitResult,
  ErrorCode,
  elicitForm,
  elicitUrl,
  type GetPromptResult,
  type InputRequest,
  type InputRequiredResult,
  type InputResponses,
  inputRequired,
  isInputRequiredResult,
  LATEST_PROTOCOL_VERSION,
  listRoots,
  McpError,
  type ReadResourceResult,
  type Tool,
} from "./protocol/index.js";
export {
  acceptedContent,
  ask,
  createFetchHandler,
  createNodeHandler,
  InMemoryEventStore,
  inputResponse,
  type McpContext,
  McpServer,
  type McpServerOptions,
  resolver,
  serveStdio,
  ToolError,
  toElicitationSchema,
} from "./server/index.js";
