import type * as z from "zod";
import type { ClientCapabilities, ServerCapabilities } from "./schemas/capabilities.js";
import { CompleteParamsSchema, CompleteResultSchema } from "./schemas/completion.js";
import { DiscoverResultSchema } from "./schemas/discover.js";
import { PaginatedParamsSchema, RequestParamsSchema } from "./schemas/envelope.js";
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
} from "./schemas/input-required.js";
import { NotificationMethod } from "./schemas/notifications.js";
import { GetPromptResultSchema, ListPromptsResultSchema } from "./schemas/prompts.js";
import {
  CallToolParamsSchema,
  GetPromptParamsSchema,
  ListenParamsSchema,
  ListenResultSchema,
  ReadResourceParamsSchema,
} from "./schemas/request-params.js";
import {
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ReadResourceResultSchema,
} from "./schemas/resources.js";
import {
  GetSkillParamsSchema,
  GetSkillResultSchema,
  ListSkillsResultSchema,
  ReadResourceDirectoryParamsSchema,
  ReadResourceDirectoryResultSchema,
} from "./schemas/skills.js";
import {
  GetTaskResultSchema,
  TASKS_EXTENSION,
  TaskAckResultSchema,
  TaskIdParamsSchema,
  UpdateTaskParamsSchema,
} from "./schemas/tasks.js";
import { CallToolResultSchema, ListToolsResultSchema } from "./schemas/tools.js";

/** What one client-to-server request of 2026-07-28 is: every field is required, so no row can leave a fact out. */
export interface ClientRequestFacts {
  /** Its params, envelope (`_meta`) included. */
  readonly params: z.ZodObject;
  /** Its complete result; a carrier may answer an InputRequiredResult instead. */
  readonly result: z.ZodType<Record<string, unknown>>;
  /** The server capability without which the server answers -32601; null for the requests every server answers. */
  readonly capability: keyof ServerCapabilities | null;
  /**
   * The Server handler that answers it, which is also the name of the Client method that sends it; null
   * for the requests the Server answers itself.
   */
  readonly handler: string | null;
  /**
   * A carrier may answer input_required and be retried with `inputResponses` and `requestState`; its
   * `target` is the params field naming what it addresses (sealed state is bound to it, `Mcp-Name`
   * repeats it).
   */
  readonly carrier: { readonly target: "name" | "uri" } | null;
  /** Its complete result carries `ttlMs` and `cacheScope`, and a client may keep it that long. */
  readonly cacheable: boolean;
  /** It takes a `cursor` and may answer with a `nextCursor`. */
  readonly paginated: boolean;
  /**
   * The notification that says its result changed, so that a kept one is stale: a list's list_changed,
   * or for a carrier one naming its target (resources/updated and the uri); null when none does.
   */
  readonly changedBy: (typeof NotificationMethod)[keyof typeof NotificationMethod] | null;
  /**
   * It changes nothing on the server, so that a 2025-era session whose connection reset may send it
   * again (the server may have acted on it once already).
   */
  readonly repeatableOnSession: boolean;
}

/** Every client-to-server request of 2026-07-28 and its facts: the one place a per-method fact is stated. */
export const CLIENT_REQUESTS = {
  "server/discover": {
    params: RequestParamsSchema,
    result: DiscoverResultSchema,
    capability: null,
    handler: null,
    carrier: null,
    cacheable: true,
    paginated: false,
    changedBy: null,
    repeatableOnSession: false,
  },
  "tools/list": {
    params: PaginatedParamsSchema,
    result: ListToolsResultSchema,
    capability: "tools",
    handler: "listTools",
    carrier: null,
    cacheable: true,
    paginated: true,
    changedBy: NotificationMethod.toolsListChanged,
    repeatableOnSession: true,
  },
  "tools/call": {
    params: CallToolParamsSchema,
    result: CallToolResultSchema,
    capability: "tools",
    handler: "callTool",
    carrier: { target: "name" },
    cacheable: false,
    paginated: false,
    changedBy: null,
    repeatableOnSession: false,
  },
  "prompts/list": {
    params: PaginatedParamsSchema,
    result: ListPromptsResultSchema,
    capability: "prompts",
    handler: "listPrompts",
    carrier: null,
    cacheable: true,
    paginated: true,
    changedBy: NotificationMethod.promptsListChanged,
    repeatableOnSession: true,
  },
  "prompts/get": {
    params: GetPromptParamsSchema,
    result: GetPromptResultSchema,
    capability: "prompts",
    handler: "getPrompt",
    carrier: { target: "name" },
    cacheable: false,
    paginated: false,
    changedBy: null,
    repeatableOnSession: true,
  },
  "resources/list": {
    params: PaginatedParamsSchema,
    result: ListResourcesResultSchema,
    capability: "resources",
    handler: "listResources",
    carrier: null,
    cacheable: true,
    paginated: true,
    changedBy: NotificationMethod.resourcesListChanged,
    repeatableOnSession: true,
  },
  "resources/templates/list": {
    params: PaginatedParamsSchema,
    result: ListResourceTemplatesResultSchema,
    capability: "resources",
    handler: "listResourceTemplates",
    carrier: null,
    cacheable: true,
    paginated: true,
    changedBy: NotificationMethod.resourcesListChanged,
    repeatableOnSession: true,
  },
  "resources/read": {
    params: ReadResourceParamsSchema,
    result: ReadResourceResultSchema,
    capability: "resources",
    handler: "readResource",
    carrier: { target: "uri" },
    cacheable: true,
    paginated: false,
    changedBy: NotificationMethod.resourceUpdated,
    repeatableOnSession: true,
  },
  // The skills extension (io.modelcontextprotocol/skills): served under its declaration in
  // `capabilities.extensions`; its files are read with resources/read.
  "resources/directory/read": {
    params: ReadResourceDirectoryParamsSchema,
    result: ReadResourceDirectoryResultSchema,
    capability: "extensions",
    handler: "readResourceDirectory",
    carrier: null,
    cacheable: false,
    paginated: true,
    changedBy: null,
    repeatableOnSession: true,
  },
  "skills/list": {
    params: PaginatedParamsSchema,
    result: ListSkillsResultSchema,
    capability: "extensions",
    handler: "listSkills",
    carrier: null,
    cacheable: true,
    paginated: true,
    changedBy: null,
    repeatableOnSession: true,
  },
  "skills/get": {
    params: GetSkillParamsSchema,
    result: GetSkillResultSchema,
    capability: "extensions",
    handler: "getSkill",
    carrier: null,
    cacheable: true,
    paginated: false,
    changedBy: null,
    repeatableOnSession: true,
  },
  "completion/complete": {
    params: CompleteParamsSchema,
    result: CompleteResultSchema,
    capability: "completions",
    handler: "complete",
    carrier: null,
    cacheable: false,
    paginated: false,
    changedBy: null,
    repeatableOnSession: true,
  },
  "subscriptions/listen": {
    params: ListenParamsSchema,
    result: ListenResultSchema,
    capability: null,
    handler: null,
    carrier: null,
    cacheable: false,
    paginated: false,
    changedBy: null,
    repeatableOnSession: false,
  },
} as const satisfies Readonly<Record<string, ClientRequestFacts>>;

export type ClientRequestMethod = keyof typeof CLIENT_REQUESTS;

/** What one request an extension adds is: it exists only when both sides declare the extension. */
export interface ExtensionRequestFacts {
  readonly params: z.ZodObject;
  readonly result: z.ZodType<Record<string, unknown>>;
  /** The extension both sides declare; without the client's declaration the server answers -32021. */
  readonly extension: string;
  /** The params field `Mcp-Name` repeats, so that intermediaries can route the request. */
  readonly routedBy: "taskId";
}

/** The requests of the extensions Roundtrip implements, and their facts. */
export const EXTENSION_REQUESTS = {
  "tasks/get": {
    params: TaskIdParamsSchema,
    result: GetTaskResultSchema,
    extension: TASKS_EXTENSION,
    routedBy: "taskId",
  },
  "tasks/update": {
    params: UpdateTaskParamsSchema,
    result: TaskAckResultSchema,
    extension: TASKS_EXTENSION,
    routedBy: "taskId",
  },
  "tasks/cancel": {
    params: TaskIdParamsSchema,
    result: TaskAckResultSchema,
    extension: TASKS_EXTENSION,
    routedBy: "taskId",
  },
} as const satisfies Readonly<Record<string, ExtensionRequestFacts>>;

export type ExtensionRequestMethod = keyof typeof EXTENSION_REQUESTS;

/** Whether `method` is a request of an extension Roundtrip implements; own keys only. */
export function isExtensionRequestMethod(method: string): method is ExtensionRequestMethod {
  return Object.hasOwn(EXTENSION_REQUESTS, method);
}

/** What one request a server puts to the client is: in 2026-07-28 an embedded input request, in the 2025 era a JSON-RPC request on the session. */
export interface ServerRequestFacts {
  readonly params: z.ZodType;
  /** What the client answers it with: one `inputResponses` entry. */
  readonly result: z.ZodType<Record<string, unknown>>;
  /** The client capability a server needs declared before it may ask. */
  readonly capability: keyof ClientCapabilities;
}

/** Every server-to-client request and its facts. */
export const SERVER_REQUESTS = {
  "elicitation/create": {
    params: ElicitRequestSchema.shape.params,
    result: ElicitResultSchema,
    capability: "elicitation",
  },
  "sampling/createMessage": {
    params: CreateMessageRequestSchema.shape.params,
    result: CreateMessageResultSchema,
    capability: "sampling",
  },
  "roots/list": {
    params: ListRootsRequestSchema.shape.params,
    result: ListRootsResultSchema,
    capability: "roots",
  },
} as const satisfies Readonly<Record<string, ServerRequestFacts>>;

export type ServerRequestMethod = keyof typeof SERVER_REQUESTS;

/** Whether `method` is a client-to-server request of 2026-07-28; own keys only, so `toString` is none. */
export function isClientRequestMethod(method: string): method is ClientRequestMethod {
  return Object.hasOwn(CLIENT_REQUESTS, method);
}

/** The facts of a client-to-server request, or undefined for a method 2026-07-28 does not have. */
export function methodFacts(method: ClientRequestMethod): ClientRequestFacts;
export function methodFacts(method: string): ClientRequestFacts | undefined;
export function methodFacts(method: string): ClientRequestFacts | undefined {
  return isClientRequestMethod(method) ? CLIENT_REQUESTS[method] : undefined;
}

/** The methods whose row says `fact`, in the table's order. */
export function methodsWhere(fact: (facts: ClientRequestFacts) => boolean): ClientRequestMethod[] {
  return (Object.keys(CLIENT_REQUESTS) as ClientRequestMethod[]).filter((method) =>
    fact(CLIENT_REQUESTS[method]),
  );
}

/** The schema of a request's complete result, typed as that request's. */
export function resultSchemaOf<M extends ClientRequestMethod>(
  method: M,
): (typeof CLIENT_REQUESTS)[M]["result"] {
  return CLIENT_REQUESTS[method].result;
}

export function isPaginated(method: string): boolean {
  return methodFacts(method)?.paginated === true;
}

export function isCacheable(method: string): boolean {
  return methodFacts(method)?.cacheable === true;
}
