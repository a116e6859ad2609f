import { type JsonRpcNotification, notification } from "../protocol/jsonrpc.js";
import type { ServerCapabilities } from "../protocol/schemas/capabilities.js";
import type { RequestId } from "../protocol/schemas/common.js";
import { NotificationMethod, type SubscriptionFilter } from "../protocol/schemas/notifications.js";
import { META } from "../protocol/versions.js";
import type { RequestContext } from "./context.js";

/** Which filters a broadcast notification is for. */
const WANTS: Record<string, (filter: SubscriptionFilter, params: Record<string, unknown>) => boolean> = {
  [NotificationMethod.toolsListChanged]: (f) => f.toolsListChanged === true,
  [NotificationMethod.promptsListChanged]: (f) => f.promptsListChanged === true,
  [NotificationMethod.resourcesListChanged]: (f) => f.resourcesListChanged === true,
  [NotificationMethod.resourceUpdated]: (f, params) =>
    typeof params.uri === "string" && f.resourceSubscriptions?.includes(params.uri) === true,
};

interface Listener {
  id: RequestId;
  filter: SubscriptionFilter;
  context: RequestContext;
  close: () => void;
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

  /** Acknowledges, then holds the request open until it is cancelled or the server closes. */
  async listen(context: RequestContext, filter: SubscriptionFilter): Promise<void> {
    if (context.signal.aborted) return;
    await new Promise<void>((resolve, reject) => {
      const remove = (): void => {
        this.#listeners.delete(listener);
        context.signal.removeEventListener("abort", listener.close);
      };
      const listener: Listener = {
        id: context.requestId,
        filter,
        context,
        close: () => {
          remove();
          resolve();
        },
      };
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
      void listener.context.notify(message).catch(() => listener.close());
    }
  }

  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.close();
  }
}
