import { ErrorCode, McpError } from "../../protocol/errors.js";
import { isInputRequiredResult } from "../../protocol/input-required.js";
import type { Annotations, Icon } from "../../protocol/schemas/common.js";
import type { CompleteParams } from "../../protocol/schemas/completion.js";
import type { InputRequiredResult } from "../../protocol/schemas/input-required.js";
import type { ReadResourceParams } from "../../protocol/schemas/requests.js";
import type { Resource, ResourceTemplate } from "../../protocol/schemas/resources.js";
import type { RequestContext } from "../context.js";
import type { ResultObject } from "../middleware.js";
import { type CacheHint, checkCacheHint, withCacheHint } from "./cache-hints.js";
import { type Completers, type CompleterTable, checkCompleters, complete } from "./completions.js";
import {
  type Awaitable,
  type ResourceContext,
  type ResourceInputContext,
  resourceContext,
  resourceInputContext,
} from "./context.js";
import type { CanAsk, StaticResourceAsks } from "./handler-rules.js";
import { InputResponseError } from "./input-responses.js";
import { checkOnce } from "./once-rounds.js";
import {
  compileUriTemplate,
  type IsUriTemplate,
  isUriTemplate,
  type TemplateVariableNames,
  type UriTemplate,
} from "./uri-template.js";

export interface ResourceConfig<U extends string> {
  /** A URI, or an RFC 6570 template (levels 1 and 2) such as `tickets://{id}`. */
  uri: U;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
  /**
   * Rounds that run once (resource templates only: a static resource never asks). A round that carries
   * requestState runs its handler at most once across the fleet; see McpServerOptions.once.
   */
  once?: boolean;
  /**
   * Suggested values for a template's variables, answered to `completion/complete` with a
   * `ref/resource` naming this template (resource templates only).
   */
  complete?: Completers<TemplateVariableNames<U>>;
  /**
   * How long clients may reuse what resources/read returns for this resource (every URI of a
   * template), and the list it is in, which is only as fresh as its least fresh entry. Overrides the
   * server-wide `cache` for this resource.
   */
  cache?: CacheHint;
}

/** One piece of a resource's contents; `uri` and `mimeType` default to the resource's. */
export type ResourceContentInput =
  | { uri?: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

/** What a resource handler may return: text, bytes, contents, or the full body. */
export type ResourceReturn =
  | string
  | Uint8Array
  | ResourceContentInput
  | ResourceContentInput[]
  | { contents: ResourceContentInput[] };

export type ResourceVariables<U extends string> = string extends U
  ? Record<string, string>
  : { [K in TemplateVariableNames<U>]: string };

/** A static resource only returns contents: it cannot ask for input. */
export type StaticResourceHandler = (
  variables: Record<never, never>,
  ctx: ResourceContext,
) => Awaitable<ResourceReturn>;

/** A resource template may ask before answering: return `inputRequired(...)` and read the answers from `ctx`. */
export type ResourceTemplateHandler<U extends string> = (
  variables: ResourceVariables<U>,
  ctx: ResourceInputContext,
) => Awaitable<ResourceReturn | InputRequiredResult>;

export type ResourceHandler<U extends string> =
  IsUriTemplate<U> extends false ? StaticResourceHandler : ResourceTemplateHandler<U>;

/**
 * What `McpServer.resource` accepts before the static-resource rule is applied: a static resource's
 * handler may be written to return an InputRequiredResult here, so that StaticResourceRule, not a
 * structural mismatch, is what the compiler reports.
 */
export type ResourceHandlerShape<U extends string> =
  IsUriTemplate<U> extends false
    ? (
        variables: Record<never, never>,
        ctx: ResourceContext,
      ) => Awaitable<ResourceReturn | InputRequiredResult>
    : ResourceTemplateHandler<U>;

/** Intersected with a resource's handler: StaticResourceAsks when a static resource's handler can ask, else `unknown`. */
export type StaticResourceRule<U extends string, H> =
  IsUriTemplate<U> extends false ? (CanAsk<H> extends true ? StaticResourceAsks : unknown) : unknown;

interface Registered {
  name: string;
  config: ResourceConfig<string>;
  template: UriTemplate | undefined;
  completers: CompleterTable | undefined;
  cache: CacheHint | undefined;
  handler: (variables: Record<string, string>, ctx: ResourceInputContext) => Awaitable<unknown>;
}

function byKey<T>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

function listingFields(name: string, config: ResourceConfig<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = { name };
  for (const key of ["title", "description", "mimeType", "icons", "annotations", "_meta"] as const) {
    if (config[key] !== undefined) fields[key] = config[key];
  }
  return fields;
}

function toContents(value: unknown, uri: string, mimeType: string | undefined): ResultObject[] {
  const complete = (content: Record<string, unknown>): ResultObject => {
    const filled: ResultObject = { uri, ...content };
    if (filled.mimeType === undefined && mimeType !== undefined) filled.mimeType = mimeType;
    return filled;
  };
  if (typeof value === "string") return [complete({ text: value })];
  if (value instanceof Uint8Array) return [complete({ blob: Buffer.from(value).toString("base64") })];
  if (Array.isArray(value)) return value.map((content) => complete(content as Record<string, unknown>));
  if (typeof value === "object" && value !== null) {
    const body = value as Record<string, unknown>;
    if (Array.isArray(body.contents)) return toContents(body.contents, uri, mimeType);
    if (typeof body.text === "string" || typeof body.blob === "string") return [complete(body)];
  }
  throw new Error("a resource handler must return a string, bytes, or contents with text or blob");
}

export class ResourceRegistry {
  readonly #static = new Map<string, Registered>();
  readonly #templates = new Map<string, Registered>();

  register(name: string, config: ResourceConfig<string>, handler: unknown): () => boolean {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("A resource needs a non-empty name");
    if (typeof config?.uri !== "string" || config.uri.length === 0) {
      throw new TypeError(`Resource '${name}' needs a uri (a URI or a URI template)`);
    }
    if (typeof handler !== "function") throw new TypeError(`Resource '${name}' needs a handler function`);
    const template = isUriTemplate(config.uri) ? compileUriTemplate(config.uri) : undefined;
    if (checkOnce(config.once, `Resource '${name}'`) && !template) {
      throw new TypeError(
        `Resource '${name}' is static and cannot be once: only resource templates take part in multi round-trip requests`,
      );
    }
    if (config.complete !== undefined && !template) {
      throw new TypeError(
        `Resource '${name}' is static and has nothing to complete: only a resource template's variables take completions`,
      );
    }
    const completers = checkCompleters(config.complete, template?.variables ?? [], `Resource '${name}'`);
    const cache = checkCacheHint(config.cache, `Resource '${name}'`);
    const table = template ? this.#templates : this.#static;
    if (table.has(config.uri)) {
      throw new Error(
        `A resource is already registered at '${config.uri}'; remove it first or use another URI`,
      );
    }
    table.set(config.uri, {
      name,
      config,
      template,
      completers,
      cache,
      handler: handler as Registered["handler"],
    });
    return () => table.delete(config.uri);
  }

  isOnce(uri: string): boolean {
    return this.#find(uri)?.entry.config.once === true;
  }

  listResources(): Resource[] {
    return [...this.#static.values()]
      .map((entry) => ({ uri: entry.config.uri, ...listingFields(entry.name, entry.config) }) as Resource)
      .sort(byKey((resource) => resource.uri));
  }

  listTemplates(): ResourceTemplate[] {
    return [...this.#templates.values()]
      .map(
        (entry) =>
          ({ uriTemplate: entry.config.uri, ...listingFields(entry.name, entry.config) }) as ResourceTemplate,
      )
      .sort(byKey((template) => template.uriTemplate));
  }

  /** The cache hints of the listed resources (static ones) or templates, for the list's own hint. */
  cacheHints(kind: "resources" | "templates"): (CacheHint | undefined)[] {
    return [...(kind === "resources" ? this.#static : this.#templates).values()].map((entry) => entry.cache);
  }

  /** Completes a variable of the template registered at exactly `uriTemplate`. */
  complete(params: CompleteParams, uriTemplate: string): ReturnType<typeof complete> {
    const entry = this.#templates.get(uriTemplate);
    if (!entry?.template) {
      throw McpError.invalidParams(
        `Unknown resource template: '${uriTemplate}'; resources/templates/list names the templates this server offers`,
      );
    }
    return complete(entry.completers, entry.template.variables, params, `Resource template '${uriTemplate}'`);
  }

  #find(uri: string): { entry: Registered; variables: Record<string, string> } | undefined {
    const exact = this.#static.get(uri);
    if (exact) return { entry: exact, variables: {} };
    for (const entry of this.#templates.values()) {
      const variables = entry.template?.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  }

  async read(params: ReadResourceParams, request: RequestContext): Promise<ResultObject> {
    const found = this.#find(params.uri);
    if (!found) throw McpError.invalidParams(`Resource not found: ${params.uri}`, { uri: params.uri });
    const { entry, variables } = found;
    const ctx = entry.template
      ? resourceInputContext(request, params, params.uri)
      : (resourceContext(request, params.uri) as ResourceInputContext);
    let result: unknown;
    try {
      result = await entry.handler(variables, ctx);
    } catch (error) {
      if (error instanceof InputResponseError) throw McpError.invalidParams(error.message);
      throw error;
    }
    if (isInputRequiredResult(result)) {
      if (entry.template) return result;
      throw new McpError(
        ErrorCode.InternalError,
        `Resource '${entry.name}' is static, and static resources cannot return InputRequiredResult; only resource templates take part in multi round-trip requests. Register it with a URI template, or return its contents`,
      );
    }
    return withCacheHint({ contents: toContents(result, params.uri, entry.config.mimeType) }, entry.cache);
  }
}
