import type { CacheScope } from "../protocol/schemas/common.js";
import type { CompleteParams, CompleteResult } from "../protocol/schemas/completion.js";
import type { InputRequiredResult } from "../protocol/schemas/input-required.js";
import type { GetPromptResult, ListPromptsResult } from "../protocol/schemas/prompts.js";
import type {
  CallToolParams,
  GetPromptParams,
  PaginatedParams,
  ReadResourceParams,
} from "../protocol/schemas/requests.js";
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from "../protocol/schemas/resources.js";
import type {
  GetSkillParams,
  GetSkillResult,
  ListSkillsResult,
  ReadResourceDirectoryParams,
  ReadResourceDirectoryResult,
} from "../protocol/schemas/skills.js";
import type { CreateTaskResult } from "../protocol/schemas/tasks.js";
import type { CallToolResult, ListToolsResult } from "../protocol/schemas/tools.js";
import type { RequestContext } from "./context.js";

type Awaitable<T> = T | Promise<T>;

/** What a handler returns: `resultType` defaults to "complete". */
export type Complete<T> = Omit<T, "resultType"> & { resultType?: "complete" };

/** Cacheable results: the server fills in its configured `ttlMs` and `cacheScope` when absent. */
export type CacheableBody<T> = Omit<T, "resultType" | "ttlMs" | "cacheScope"> & {
  resultType?: "complete";
  ttlMs?: number;
  cacheScope?: CacheScope;
};

export interface Handlers {
  listTools?: (ctx: RequestContext, params: PaginatedParams) => Awaitable<CacheableBody<ListToolsResult>>;
  /** May answer a task (`Tasks.start`) when the server has the tasks extension and the client declared it. */
  callTool?: (
    ctx: RequestContext,
    params: CallToolParams,
  ) => Awaitable<Complete<CallToolResult> | InputRequiredResult | CreateTaskResult>;
  listPrompts?: (ctx: RequestContext, params: PaginatedParams) => Awaitable<CacheableBody<ListPromptsResult>>;
  getPrompt?: (
    ctx: RequestContext,
    params: GetPromptParams,
  ) => Awaitable<Complete<GetPromptResult> | InputRequiredResult>;
  listResources?: (
    ctx: RequestContext,
    params: PaginatedParams,
  ) => Awaitable<CacheableBody<ListResourcesResult>>;
  listResourceTemplates?: (
    ctx: RequestContext,
    params: PaginatedParams,
  ) => Awaitable<CacheableBody<ListResourceTemplatesResult>>;
  readResource?: (
    ctx: RequestContext,
    params: ReadResourceParams,
  ) => Awaitable<CacheableBody<ReadResourceResult> | InputRequiredResult>;
  complete?: (ctx: RequestContext, params: CompleteParams) => Awaitable<Complete<CompleteResult>>;
  // The skills extension.
  listSkills?: (ctx: RequestContext, params: PaginatedParams) => Awaitable<CacheableBody<ListSkillsResult>>;
  getSkill?: (ctx: RequestContext, params: GetSkillParams) => Awaitable<CacheableBody<GetSkillResult>>;
  readResourceDirectory?: (
    ctx: RequestContext,
    params: ReadResourceDirectoryParams,
  ) => Awaitable<Complete<ReadResourceDirectoryResult>>;
}
