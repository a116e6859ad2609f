import type { RequestId } from "../../protocol/schemas/common.js";
import type { RequestMeta } from "../../protocol/schemas/envelope.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";
import type { CallToolParams } from "../../protocol/schemas/request-params.js";
import type { AuthInfo } from "../auth-info.js";
import { createRequestContext, type RequestContext, type TransportInfo } from "../context.js";

/**
 * What re-creates a task's body on any instance, kept sealed on the task: the tools/call as the client
 * sent it and whom it was validated as. Request headers are not kept (they carry the token again).
 */
export interface TaskCall {
  params: CallToolParams;
  requestId: RequestId;
  meta: RequestMeta;
  auth?: AuthInfo;
  transport: TransportInfo["kind"];
}

export function taskCallOf(params: CallToolParams, context: RequestContext): TaskCall {
  return {
    params,
    requestId: context.requestId,
    meta: context.meta,
    ...(context.auth ? { auth: context.auth } : {}),
    transport: context.transport.kind,
  };
}

/** Stands for the progress token a task's context reports under: its progress is the task's status. */
const TASK_PROGRESS = "task";

/**
 * The context a task's body runs with: the creating request's, with the task's signal; a progress
 * notification's message becomes the task's statusMessage (the request was answered with the task,
 * so nothing else can reach the client), and log notifications go nowhere.
 */
export function taskContext(
  base: Pick<RequestContext, "requestId" | "meta" | "auth" | "transport">,
  signal: AbortSignal,
  status: (message: string) => Promise<void>,
): RequestContext {
  return createRequestContext({
    requestId: base.requestId,
    method: "tools/call",
    meta: { ...base.meta, progressToken: TASK_PROGRESS },
    signal,
    auth: base.auth,
    transport: base.transport,
    sink: async (message) => {
      const text = message.method === NotificationMethod.progress ? message.params?.message : undefined;
      if (typeof text === "string") await status(text);
    },
  });
}
