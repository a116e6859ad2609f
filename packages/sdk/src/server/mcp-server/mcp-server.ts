import { RequestStateSecurity } from "@roundtrip/sealing";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { stderrLogger } from "../../protocol/logger.js";
import type { Implementation } from "../../protocol/schemas/common.js";
import type { OnceStore } from "../fleet/once-store.js";
import type { Handlers } from "../handlers.js";
import type { Middleware } from "../middleware.js";
import { requestStateBoundary } from "../request-state-boundary.js";
import { type HandledResponse, type HandleOptions, Server, type ServerOptions } from "../server.js";
import { type CacheHint, listCacheHint, withCacheHint } from "./cache-hints.js";
import { type OnceOptions, OnceRounds } from "./once-rounds.js";
import { type PromptConfig, type PromptHandler, PromptRegistry } from "./prompts.js";
import {
  type ResourceConfig,
  type ResourceHandler,
  type ResourceHandlerShape,
  ResourceRegistry,
  type StaticResourceRule,
} from "./resources.js";
import type { Infer, SchemaLike } from "./schema.js";
import { singlePageLists } from "./single-page-lists.js";
import { SkillCatalog, type SkillCatalogOptions, type SkillConfig } from "./skills/catalog.js";
import {
  type ChannelRule,
  type NoInput,
  type ResolverMapFor,
  type ToolConfig,
  type ToolHandler,
  type ToolHandlerShape,
  ToolRegistry,
} from "./tools.js";

/**
 * The registries build results as plain JSON objects; the low-level server checks every result it
 * is handed (resultType, InputRequiredResult shape, capabilities) before it goes on the wire.
 */
type HandlerResult<K extends "callTool" | "getPrompt" | "readResource"> = Awaited<
  ReturnType<NonNullable<Handlers[K]>>
>;

/** The name an unnamed server reports, and seals its default request state for. */
export const UNNAMED_SERVER = "mcp-server";

export interface McpServerInfo extends Partial<Implementation> {}

export interface McpServerOptions extends ServerOptions {
  /**
   * How requestState is protected on the wire. Default: `RequestStateSecurity.ephemeral()`, a key that
   * lives in this process only; pass `keys` shared by the fleet when several instances serve one name.
   */
  requestStateSecurity?: RequestStateSecurity;
  /**
   * How `once: true` tools, prompts and resource templates keep their rounds single-use: the store
   * (default: a `MemoryOnceStore`, right for one process only; give a fleet a shared one such as
   * `RedisOnceStore` from `@roundtrip/sdk/redis`), how long outcomes are kept, how long a flow may last.
   */
  once?: OnceOptions;
  /** The current time in unix seconds (fractional), for sealing and once-flows. Defaults to the system clock. */
  now?: () => number;
  /**
   * How registered skills are served: the page size of `skills/list`, and whether clients may list a
   * skill's directories with `resources/directory/read` (declared as `directoryRead`).
   */
  skills?: SkillCatalogOptions & { directoryRead?: boolean };
}

/** A registered tool, prompt or resource; removing it tells listening clients the list changed. */
export interface Registration {
  readonly name: string;
  remove(): void;
}

const MISSING_AUDIENCE =
  'requestStateSecurity is configured but this server has no name, so its sealed requestState would be accepted by any server holding the same keys. Name the server (new McpServer({ name: "my-service", version: "1.0.0" }, ...)) or set an audience (new RequestStateSecurity({ keys, audience: "my-service" })).';

/**
 * The high-level MCP server: register tools, prompts and resources and it answers the protocol. It is
 * built on the low-level `Server` (`mcp.server`, which transports take) with the request-state boundary
 * installed first, so requestState is sealed by default and every handler and later middleware reads
 * plaintext.
 */
export class McpServer {
  /** The low-level server: hand it to a transport, e.g. `createNodeHandler(mcp.server)`. */
  readonly server: Server;
  readonly #tools: ToolRegistry;
  readonly #prompts = new PromptRegistry();
  readonly #resources = new ResourceRegistry();
  readonly #once: OnceRounds;
  readonly #serverCache: CacheHint | undefined;
  readonly #skills: SkillCatalog;
  readonly #directoryRead: boolean;
  #installed = { tools: false, prompts: false, resources: false, completions: false, skills: false };

  /**
   * `newServer` makes the low-level server: the McpServer that `@roundtrip/sdk/server` exports makes
   * the one it exports, which serves the 2025 era too (see UnenvelopedEra).
   */
  constructor(
    info: McpServerInfo = {},
    options: McpServerOptions = {},
    newServer: (info: Implementation, options: ServerOptions) => Server = (i, o) => new Server(i, o),
  ) {
    const { requestStateSecurity, once, now, skills, ...serverOptions } = options;
    const named = typeof info.name === "string" && info.name.length > 0;
    if (requestStateSecurity !== undefined) {
      if (!(requestStateSecurity instanceof RequestStateSecurity)) {
        throw new TypeError("requestStateSecurity must be a RequestStateSecurity from @roundtrip/sealing");
      }
      if (!named && requestStateSecurity.audience === undefined) throw new TypeError(MISSING_AUDIENCE);
    }
    const name = named ? (info.name as string) : UNNAMED_SERVER;
    this.server = newServer({ ...info, name, version: info.version ?? "0.0.0" }, serverOptions);
    this.#serverCache = serverOptions.cache;
    const logger = serverOptions.logger ?? stderrLogger;
    const security = requestStateSecurity ?? RequestStateSecurity.ephemeral();
    this.server.use(
      requestStateBoundary(security, { defaultAudience: name, logger, ...(now ? { now } : {}) }),
    );
    this.server.use(singlePageLists(["skills/list", "resources/directory/read"]));
    const { directoryRead, ...catalogOptions } = skills ?? {};
    this.#skills = new SkillCatalog(catalogOptions);
    this.#directoryRead = directoryRead === true;
    this.#once = new OnceRounds({
      options: once ?? {},
      logger,
      now: now ?? (() => Date.now() / 1000),
      security,
    });
    this.#tools = new ToolRegistry(logger, serverOptions.tasks);
  }

  get name(): string {
    return this.server.name;
  }

  /** Where once-rounds are recorded; `await mcp.onceStore.ready()` belongs in a readiness probe. */
  get onceStore(): OnceStore {
    return this.#once.store;
  }

  /** Adds middleware after the request-state boundary: it sees plaintext requestState. */
  use(middleware: Middleware): this {
    this.server.use(middleware);
    return this;
  }

  /**
   * Registers a tool. Either its handler drives the rounds (it may return `inputRequired(...)` and reads
   * `ctx.inputResponses` / `ctx.requestState`), or its `resolve` map does and the handler receives the
   * resolved values: never both.
   */
  tool<
    I extends SchemaLike = NoInput,
    O extends SchemaLike | undefined = undefined,
    R extends ResolverMapFor<Infer<I>> = Record<never, never>,
    H extends ToolHandlerShape<I, O, R> = ToolHandler<I, O, R>,
  >(name: string, config: ToolConfig<I, O, R>, handler: H & ChannelRule<R, H>): Registration {
    this.#tools.register(name, config as ToolConfig<SchemaLike, SchemaLike | undefined, unknown>, handler);
    this.#installTools();
    this.server.notifyToolsListChanged();
    return {
      name,
      remove: () => {
        if (this.#tools.remove(name)) this.server.notifyToolsListChanged();
      },
    };
  }

  /**
   * Registers a prompt; its handler may ask before rendering by returning `inputRequired(...)`. A
   * `complete` option makes the server answer `completion/complete` for its arguments.
   */
  prompt<I extends SchemaLike = NoInput>(
    name: string,
    config: PromptConfig<I>,
    handler: PromptHandler<I>,
  ): Registration {
    this.#prompts.register(name, config as PromptConfig<SchemaLike>, handler);
    this.#installPrompts();
    if (config.complete !== undefined) this.#installCompletions();
    this.server.notifyPromptsListChanged();
    return {
      name,
      remove: () => {
        if (this.#prompts.remove(name)) this.server.notifyPromptsListChanged();
      },
    };
  }

  /**
   * Registers a resource at a URI, or a family of them at an RFC 6570 template (`{var}`, `{+var}`,
   * `{#var}`). Only templates may ask for input: a static resource's handler cannot return
   * `inputRequired(...)`.
   */
  resource<U extends string, H extends ResourceHandlerShape<U> = ResourceHandler<U>>(
    name: string,
    config: ResourceConfig<U>,
    handler: H & StaticResourceRule<U, H>,
  ): Registration {
    const unregister = this.#resources.register(name, config, handler);
    this.#installResources();
    if (config.complete !== undefined) this.#installCompletions();
    this.server.notifyResourcesListChanged();
    return {
      name,
      remove: () => {
        if (unregister()) this.server.notifyResourcesListChanged();
      },
    };
  }

  /**
   * Registers a skill (the io.modelcontextprotocol/skills extension): its files, SKILL.md with YAML
   * front matter naming it among them, are served as `skill://<name>/<path>` resources, and
   * `skills/list` and `skills/get` describe it with each file's digest and size. A bad name, path or
   * front matter, or a name or URI already taken, is refused here and registers nothing.
   */
  skill(name: string, config: SkillConfig): Registration {
    const removeSkill = this.#skills.add(name, config);
    const prefix = `skill://${name}/`;
    const unregister: (() => boolean)[] = [];
    try {
      for (const resource of this.#skills.resources().filter((r) => r.uri.startsWith(prefix))) {
        const { uri, name: resourceName, ...fields } = resource;
        unregister.push(
          this.#resources.register(resourceName, { ...fields, uri }, () => this.#skills.read(uri)),
        );
      }
    } catch (error) {
      for (const undo of unregister) undo();
      removeSkill();
      throw error;
    }
    this.#installResources();
    this.#installSkills();
    this.server.notifyResourcesListChanged();
    return {
      name,
      remove: () => {
        if (!removeSkill()) return;
        for (const undo of unregister) undo();
        this.server.notifyResourcesListChanged();
      },
    };
  }

  /** Serves one JSON-RPC request in memory (what transports call). */
  handleRequest(request: JsonRpcRequest, options?: HandleOptions): Promise<HandledResponse> {
    return this.server.handleRequest(request, options);
  }

  /** Ends every open subscription stream. */
  close(): void {
    this.server.close();
  }

  #installTools(): void {
    if (this.#installed.tools) return;
    this.#installed.tools = true;
    this.server.onListTools(() => ({ tools: this.#tools.list() }));
    this.server.describeTools((name) => this.#tools.definition(name));
    this.server.onCallTool(
      (ctx, params) =>
        (this.#tools.isOnce(params.name) && !this.#tools.runsAsTask(params.name, ctx)
          ? this.#once.run("tools/call", params.name, params, (p) => this.#tools.call(p, ctx))
          : this.#tools.call(params, ctx)) as Promise<HandlerResult<"callTool">>,
    );
  }

  #installPrompts(): void {
    if (this.#installed.prompts) return;
    this.#installed.prompts = true;
    this.server.onListPrompts(() =>
      withCacheHint({ prompts: this.#prompts.list() }, this.#listHint(this.#prompts.cacheHints())),
    );
    this.server.onGetPrompt(
      (ctx, params) =>
        (this.#prompts.isOnce(params.name)
          ? this.#once.run("prompts/get", params.name, params, (p) => this.#prompts.get(p, ctx))
          : this.#prompts.get(params, ctx)) as Promise<HandlerResult<"getPrompt">>,
    );
  }

  #installResources(): void {
    if (this.#installed.resources) return;
    this.#installed.resources = true;
    this.server.onListResources(() =>
      withCacheHint(
        { resources: this.#resources.listResources() },
        this.#listHint(this.#resources.cacheHints("resources")),
      ),
    );
    this.server.onListResourceTemplates(() =>
      withCacheHint(
        { resourceTemplates: this.#resources.listTemplates() },
        this.#listHint(this.#resources.cacheHints("templates")),
      ),
    );
    this.server.onReadResource(
      (ctx, params) =>
        (this.#resources.isOnce(params.uri)
          ? this.#once.run("resources/read", params.uri, params, (p) => this.#resources.read(p, ctx))
          : this.#resources.read(params, ctx)) as Promise<HandlerResult<"readResource">>,
    );
  }

  #installSkills(): void {
    if (this.#installed.skills) return;
    this.#installed.skills = true;
    this.server.onListSkills((_ctx, params) => this.#skills.list(params.cursor));
    this.server.onGetSkill((_ctx, params) => this.#skills.get(params.uri));
    if (this.#directoryRead) {
      this.server.onReadResourceDirectory((_ctx, params) =>
        this.#skills.directory(params.uri, params.cursor),
      );
    }
  }

  /**
   * Installed with the first registration that completes, so the `completions` capability is
   * declared exactly when something can be completed.
   */
  #installCompletions(): void {
    if (this.#installed.completions) return;
    this.#installed.completions = true;
    this.server.onComplete((_ctx, params) =>
      params.ref.type === "ref/prompt"
        ? this.#prompts.complete(params, params.ref.name)
        : this.#resources.complete(params, params.ref.uri),
    );
  }

  #listHint(hints: (CacheHint | undefined)[]): CacheHint | undefined {
    return listCacheHint(hints, this.#serverCache);
  }
}
