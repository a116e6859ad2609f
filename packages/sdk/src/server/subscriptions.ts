import { ErrorCode, McpError } from "../protocol/errors.js";
import { type JsonRpcNotification, notification } from "../protocol/jsonrpc.js";
import type { ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { RequestId } from "../protocol/schemas/common.js";
import { NotificationMethod, type SubscriptionFilter } from "../protocol/schemas/notifications.js";
import { META } from "../protocol/versions.js";
import type { RequestContext } from "./context.js";
import { principalOf } from "./principal.js";

/** Which filters a broadcast notification is for. */
const WANTS: Record<string, (filter: SubscriptionFilter, params: Record<string, unknown>) => boolean> = {
  [NotificationMethod.toolsListChanged]: (f) => f.toolsListChanged === true,
  [NotificationMethod.promptsListChanged]: (f) => f.promptsListChanged === true,
  [NotificationMethod.resourcesListChanged]: (f) => f.resourcesListChanged === true,
  [NotificationMethod.resourceUpdated]: (f, params) =>
    typeof params.uri === "string" && f.resourceSubscriptions?.includes(params.uri) === true,
  [NotificationMethod.tasks]: (f, params) =>
    typeof params.taskId === "string" && f.taskIds?.includes(params.taskId) === true,
};

interface Listener {
  id: RequestId;
  filter: SubscriptionFilter;
  context: RequestContext;
  close: () => void;
  /** Restarts the idle clock: called for each notification the stream delivers. */
  touch: () => void;
}

/** How many `subscriptions/listen` streams one principal may hold, and for how long each lives. */
export interface SubscriptionLimits {
  /** Open streams one principal may hold at once on this instance; the next is refused. Default 16. */
  maxPerPrincipal?: number;
  /** A stream that delivers no notification for this long ends with its result. Default 10 minutes. */
  idleTimeoutMs?: number;
  /** A stream ends with its result after this long, however busy. Default 1 hour. */
  maxLifetimeMs?: number;
}

const DEFAULT_LIMITS: Required<SubscriptionLimits> = {
  maxPerPrincipal: 16,
  idleTimeoutMs: 10 * 60_000,
  maxLifetimeMs: 60 * 60_000,
};

/** Node fires a longer timeout at once; a duration beyond it (or Infinity) means no timer at all. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function checkedLimits(limits: SubscriptionLimits = {}): Required<SubscriptionLimits> {
  const resolved = { ...DEFAULT_LIMITS, ...limits };
  if (!Number.isInteger(resolved.maxPerPrincipal) || resolved.maxPerPrincipal < 1) {
    throw new TypeError("subscriptions.maxPerPrincipal must be a whole number of streams, at least 1");
  }
  for (const key of ["idleTimeoutMs", "maxLifetimeMs"] as const) {
    const value = resolved[key];
    if (typeof value !== "number" || Number.isNaN(value) || value <= 0) {
      throw new TypeError(
        `subscriptions.${key} must be a positive number of milliseconds, or Infinity for none`,
      );
    }
  }
  return resolved;
}

function timer(ms: number, fire: () => void): NodeJS.Timeout | undefined {
  if (ms > LONGEST_TIMER_MS) return undefined;
  const handle = setTimeout(fire, ms);
  handle.unref();
  return handle;
}

/** The subset of a requested filter this server can honour, given what it advertises. */
export function honouredFilter(
  requested: SubscriptionFilter,
  capabilities: ServerCapabilities,
): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged && capabilities.tools?.listChanged) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && capabilities.prompts?.listChanged) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && capabilities.resources?.listChanged)
    honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions && capabilities.resources?.subscribe) {
    honoured.resourceSubscriptions = [...requested.resourceSubscriptions];
  }
  return honoured;
}

/**
 * Open `subscriptions/listen` streams. Each lives exactly as long as its request: it ends when the
 * client goes away or the server closes, and every notification carries the subscription id.
 */
export class SubscriptionRegistry {
  readonly #listeners = new Set<Listener>();
  readonly #openByPrincipal = new Map<string, number>();
  readonly #limits: Required<SubscriptionLimits>;

  constructor(limits?: SubscriptionLimits) {
    this.#limits = checkedLimits(limits);
  }

  /**
   * Acknowledges, then holds the request open until it is cancelled, the server closes, or it reaches
   * its idle or maximum lifetime. Refuses (-32600) a principal that already holds the most streams.
   */
  async listen(context: RequestContext, filter: SubscriptionFilter): Promise<void> {
    if (context.signal.aborted) return;
    const principal = principalOf(context.auth);
    const open = this.#openByPrincipal.get(principal) ?? 0;
    const limit = this.#limits.maxPerPrincipal;
    if (open >= limit) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many subscriptions/listen streams: this principal already holds ${open}, the most this server allows; close one (one stream can carry every notification type) before opening another`,
        { reason: "too_many_listen_streams", limit },
      );
    }
    this.#openByPrincipal.set(principal, open + 1);
    await new Promise<void>((resolve, reject) => {
      let idle: NodeJS.Timeout | undefined;
      let lifetime: NodeJS.Timeout | undefined;
      let closed = false;
      const remove = (): void => {
        if (closed) return;
        closed = true;
        this.#listeners.delete(listener);
        context.signal.removeEventListener("abort", listener.close);
        clearTimeout(idle);
        clearTimeout(lifetime);
        const left = (this.#openByPrincipal.get(principal) ?? 1) - 1;
        if (left > 0) this.#openByPrincipal.set(principal, left);
        else this.#openByPrincipal.delete(principal);
      };
      const listener: Listener = {
        id: context.requestId,
        filter,
        context,
        close: () => {
          remove();
          resolve();
        },
        touch: () => {
          if (closed) return;
          clearTimeout(idle);
          idle = timer(this.#limits.idleTimeoutMs, listener.close);
        },
      };
      // Ending by time is a normal end: the stream gets its result and the client may listen again.
      lifetime = timer(this.#limits.maxLifetimeMs, listener.close);
      listener.touch();
      context.signal.addEventListener("abort", listener.close, { once: true });
      // Registered before the acknowledgement is sent, so a publish or close() that follows it is never
      // missed; the acknowledgement still reaches the sink before anything published afterwards.
      this.#listeners.add(listener);
      context
        .notify(
          notification(NotificationMethod.subscriptionsAcknowledged, {
            notifications: filter,
            _meta: { [META.subscriptionId]: context.requestId },
          }),
        )
        .catch((error: unknown) => {
          remove();
          reject(error);
        });
    });
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Sends a notification to the streams whose filter asked for it; unknown methods reach none. */
  deliver(method: string, params: Record<string, unknown> = {}): void {
    const wants = WANTS[method];
    if (!wants) return;
    for (const listener of this.#listeners) {
      if (!wants(listener.filter, params)) continue;
      const message: JsonRpcNotification = notification(method, {
        ...params,
        _meta: { [META.subscriptionId]: listener.id },
      });
      listener.touch();
      void listener.context.notify(message).catch(() => listener.close());
    }
  }

  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.close();
  }
}
