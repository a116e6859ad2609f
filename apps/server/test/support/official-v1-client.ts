/**
 * The official TypeScript SDK v1 (1.32.2) client, the 2025-era peer most hosts ship. This package does
 * not declare it, so it is loaded from the interop suite, the workspace package that does: the same
 * pinned copy, resolved by Node from there. (Declaring it here, as a devDependency, would make these
 * plain package imports.)
 */
export { Client } from "../../../../tests/interop/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
export {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "../../../../tests/interop/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";
export {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "../../../../tests/interop/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js";
