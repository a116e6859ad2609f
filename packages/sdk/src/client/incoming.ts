import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import type { RequestId } from "../protocol/schemas/common.js";
import { CancelledParamsSchema, NotificationMethod } from "../protocol/schemas/notifications.js";
import { META } from "../protocol/versions.js";
import type { CallCache } from "./cache/call-cache.js";
import type { NotificationRouter } from "./notification-router.js";
import type { ServerRequestResponder } from "./server-requests.js";

/** Where the server's messages outside a response go. */
export interface IncomingRoutes {
  readonly cache: CallCache;
  /** Open listen streams, by the request id their notifications are tagged with. */
  readonly subscriptions: ReadonlyMap<RequestId, (message: JsonRpcNotification) => void>;
  readonly responder: ServerRequestResponder;
  readonly notifications: NotificationRouter;
}

/** Routes what the server sends outside a response: its listen streams, its cancellations of its own requests, the rest. */
export function routeIncoming(routes: IncomingRoutes, message: JsonRpcNotification): void {
  routes.cache.observe(message);
  const tag = (message.params?._meta as Record<string, unknown> | undefined)?.[META.subscriptionId];
  const subscription = tag === undefined ? undefined : routes.subscriptions.get(tag as RequestId);
  if (subscription) {
    subscription(message);
    return;
  }
  if (message.method === NotificationMethod.cancelled) {
    const parsed = CancelledParamsSchema.safeParse(message.params);
    if (parsed.success) routes.responder.cancel(parsed.data.requestId, parsed.data.reason);
    return;
  }
  routes.notifications.route(message);
}
