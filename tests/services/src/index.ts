export {
  DEFAULT_STATE_DIR,
  type EnsureOptions,
  ensureTool,
  provisionTool,
  ToolUnavailableError,
} from "./ensure-tool.js";
export { findExecutable } from "./find-executable.js";
export { freePort } from "./free-port.js";
export { dumpRedis } from "./redis-dump.js";
export { RedisServer } from "./redis-server.js";
export { manualInstall, TOOLS, type Tool, type ToolName, type ToolSource } from "./tools.js";
