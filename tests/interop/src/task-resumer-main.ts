import { Client, type TaskHandle } from "@roundtrip/sdk/client";
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";

/**
 * A process of its own resuming a task: follows the handle in TASK_HANDLE on TASK_SERVER with Roundtrip's
 * client, answering the question with TASK_EMAIL, and writes the result text (or the error's name).
 */
const handle = JSON.parse(process.env.TASK_HANDLE ?? "{}") as TaskHandle;
const client = new Client(process.env.TASK_SERVER ?? "", {
  capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  onElicit: () => ({ action: "accept", content: { email: process.env.TASK_EMAIL ?? "" } }),
});
try {
  const result = await client.followTask(handle);
  const block = result.content[0];
  process.stdout.write(`${JSON.stringify({ text: block?.type === "text" ? block.text : "" })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).name })}\n`);
} finally {
  await client.close();
}
