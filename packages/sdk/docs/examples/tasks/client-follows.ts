import { Client } from "@roundtrip/sdk";
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";

const client = new Client("https://reports.example.com/mcp", {
  // Declaring the extension lets the server answer with a task; callTool follows it to its end.
  capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  onElicit: () => ({ action: "accept", content: { email: "ops@example.com" } }),
});

const controller = new AbortController();
// Aborting stops the poll and sends tasks/cancel for the task.
const report = await client.callTool("quarterly_report", { quarter: "Q3" }, { signal: controller.signal });
console.log(report.content);
