import { Client } from "../../src/client/client.js";
import type { TaskHandle } from "../../src/client/tasks/task-handle.js";
import { TASKS_EXTENSION } from "../../src/protocol/schemas/tasks.js";

/**
 * Another process resuming a task: follows the handle in TASK_HANDLE on the server at TASK_SERVER,
 * answering its form with {name: TASK_ANSWER}, and writes the result (or the error's name) on stdout.
 */
const url = process.env.TASK_SERVER ?? "";
const handle = JSON.parse(process.env.TASK_HANDLE ?? "{}") as TaskHandle;
const client = new Client(url, {
  capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  onElicit: () => ({ action: "accept", content: { name: process.env.TASK_ANSWER ?? "" } }),
});
try {
  const result = await client.followTask(handle);
  process.stdout.write(`${JSON.stringify({ result })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).name })}\n`);
} finally {
  await client.close();
}
