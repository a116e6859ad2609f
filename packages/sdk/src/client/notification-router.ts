import type { JsonRpcNotification } from "../protocol/jsonrpc.js";
import type { Logger } from "../protocol/logger.js";
import { ElicitationCompleteParamsSchema, LegacyMethod } from "../protocol/schemas/legacy.js";
import {
  type LoggingMessageParams,
  LoggingMessageParamsSchema,
  NotificationMethod,
  type ProgressParams,
  ProgressParamsSchema,
} from "../protocol/schemas/notifications.js";

export type ProgressHandler = (progress: ProgressParams) => void;
/** Which of the server's lists changed. */
export type ListChangedHandler = (list: "tools" | "prompts" | "resources") => void;

export interface NotificationReceivers {
  /** Progress of every request, unless a call brings its own handler. */
  onProgress?: ProgressHandler;
  onLog?: (message: LoggingMessageParams) => void;
  onListChanged?: ListChangedHandler;
  onElicitationComplete?: (elicitationId: string) => void;
}

const LISTS: Record<string, "tools" | "prompts" | "resources"> = {
  [NotificationMethod.toolsListChanged]: "tools",
  [NotificationMethod.promptsListChanged]: "prompts",
  [NotificationMethod.resourcesListChanged]: "resources",
};

/**
 * Delivers what servers send while they work. Progress finds its call by the progressToken the call
 * sent (a stdio stream interleaves every call's notifications); log messages, list changes and
 * finished URL elicitations go to their one receiver each.
 */
export class NotificationRouter {
  readonly #receivers: NotificationReceivers;
  readonly #logger: Logger;
  readonly #progress = new Map<string, ProgressHandler>();
  #next = 1;

  constructor(receivers: NotificationReceivers, logger: Logger) {
    this.#receivers = receivers;
    this.#logger = logger;
  }

  /** A progressToken for one call, or none when nobody listens to progress. */
  open(handler: ProgressHandler | undefined): string | undefined {
    const receiver = handler ?? this.#receivers.onProgress;
    if (!receiver) return undefined;
    const token = `roundtrip-progress-${this.#next++}`;
    this.#progress.set(token, receiver);
    return token;
  }

  close(token: string | undefined): void {
    if (token !== undefined) this.#progress.delete(token);
  }

  route(message: JsonRpcNotification): void {
    if (message.method === NotificationMethod.progress) {
      const parsed = ProgressParamsSchema.safeParse(message.params);
      if (parsed.success) this.#progress.get(String(parsed.data.progressToken))?.(parsed.data);
      return;
    }
    if (message.method === NotificationMethod.message) {
      const parsed = LoggingMessageParamsSchema.safeParse(message.params);
      if (parsed.success) this.#receivers.onLog?.(parsed.data);
      return;
    }
    const list = LISTS[message.method];
    if (list !== undefined) {
      this.#receivers.onListChanged?.(list);
      return;
    }
    if (message.method === LegacyMethod.elicitationComplete) {
      const parsed = ElicitationCompleteParamsSchema.safeParse(message.params);
      if (parsed.success) this.#receivers.onElicitationComplete?.(parsed.data.elicitationId);
      return;
    }
    this.#logger.debug({ method: message.method }, "notification without a receiver ignored");
  }
}
