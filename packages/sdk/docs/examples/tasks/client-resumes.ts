import { readFile, writeFile } from "node:fs/promises";
import { Client, type TaskHandle } from "@roundtrip/sdk/client";
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";

const options = {
  capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  onElicit: () => ({ action: "accept" as const, content: { email: "ops@example.com" } }),
};

// One process starts the task and keeps its handle (the taskId is a bearer capability: keep it private).
const starter = new Client("https://reports.example.com/mcp", options);
const start = await starter.startTool("quarterly_report", { quarter: "Q3" });
if (start.kind === "task") await writeFile("report-task.json", JSON.stringify(start.task), { mode: 0o600 });

// Another process, later: the same questions are answered through its callbacks, the same errors thrown.
const resumer = new Client("https://reports.example.com/mcp", options);
const handle = JSON.parse(await readFile("report-task.json", "utf8")) as TaskHandle;
console.log((await resumer.getTask(handle.taskId)).status);
const report = await resumer.followTask(handle, {
  onTaskStatus: (task) => console.log(task.status, task.statusMessage ?? ""),
});
console.log(report.content);
