import { LATEST_PROTOCOL_VERSION } from "@roundtrip/sdk";
import { META, TASKS_EXTENSION } from "@roundtrip/sdk/protocol";

/**
 * The tasks extension on the wire, as a client declaring it sends each request: what a test needs to
 * read a task's status on every instance and to see the errors a client would see.
 */

export interface TaskReply {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const CAPABILITIES = { elicitation: { form: {}, url: {} }, extensions: { [TASKS_EXTENSION]: {} } };
let nextId = 1;

/** One request to `url` with `token`; `name` is what the Mcp-Name header repeats (a tool, a task id). */
export async function taskRequest(
  url: string,
  token: string,
  method: string,
  name: string,
  params: Record<string, unknown>,
): Promise<TaskReply> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      "mcp-method": method,
      "mcp-name": name,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        _meta: {
          [META.protocolVersion]: LATEST_PROTOCOL_VERSION,
          [META.clientCapabilities]: CAPABILITIES,
          [META.clientInfo]: { name: "fleet-tasks", version: "0.0.0" },
        },
        ...params,
      },
    }),
  });
  const text = await response.text();
  const body = text === "" ? {} : (JSON.parse(text) as Omit<TaskReply, "status">);
  return { status: response.status, ...body };
}

export const startTask = (url: string, token: string, tool: string, args: Record<string, unknown>) =>
  taskRequest(url, token, "tools/call", tool, { name: tool, arguments: args });

export const getTask = (url: string, token: string, taskId: string) =>
  taskRequest(url, token, "tasks/get", taskId, { taskId });

export const updateTask = (
  url: string,
  token: string,
  taskId: string,
  inputResponses: Record<string, unknown>,
) => taskRequest(url, token, "tasks/update", taskId, { taskId, inputResponses });

export const cancelTask = (url: string, token: string, taskId: string) =>
  taskRequest(url, token, "tasks/cancel", taskId, { taskId });
