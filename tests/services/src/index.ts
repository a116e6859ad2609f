export { type ChromiumOptions, type ChromiumSession, openChromium } from "./chromium.js";
export {
  DEFAULT_STATE_DIR,
  type EnsureOptions,
  ensureTool,
  provisionTool,
  ToolUnavailableError,
} from "./ensure-tool.js";
export { findExecutable } from "./find-executable.js";
export { freePort } from "./free-port.js";
export { type PrivateCa, privateCa } from "./private-ca.js";
export { exitOf, forksOf, killWithForks } from "./process-forks.js";
export { RedisCluster } from "./redis-cluster.js";
export { redisCommand, waitFor } from "./redis-command.js";
export { dumpRedis, type RedisDump } from "./redis-dump.js";
export { RedisSentinelGroup } from "./redis-sentinel.js";
export { type RedisProgram, RedisServer, type RedisServerOptions } from "./redis-server.js";
export {
  duringStall,
  type RedisStall,
  type RedisStalls,
  redisStalls,
  type StallTarget,
} from "./redis-stalls.js";
export { refusedPort } from "./refused-port.js";
export { type SlowDisk, slowDisk } from "./slow-disk.js";
export { manualInstall, TOOLS, type Tool, type ToolName, type ToolSource } from "./tools.js";
