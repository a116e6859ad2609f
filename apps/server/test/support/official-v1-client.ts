/** The official TypeScript SDK v1 (1.32.2) client, the 2025-era peer most hosts ship. */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
