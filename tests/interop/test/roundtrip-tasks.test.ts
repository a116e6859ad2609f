import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, TaskCancelledError, type TaskHandle } from "@roundtrip/sdk/client";
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { afterEach, describe, expect, it } from "vitest";
import {
  RECIPIENT_QUESTION,
  REPORT_TOOL,
  reportText,
  startTaskServer,
  type TaskServer,
} from "../src/roundtrip-task-server.js";

/**
 * Roundtrip's client and its CLI against Roundtrip's server with the tasks extension, over real HTTP:
 * a task driven to its result with a question mid-task, cancelled, and resumed from another process.
 * (The official SDKs do not implement the 2026-07-28 tasks extension, so both sides are Roundtrip's.)
 */

let server: TaskServer | undefined;
const homes: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

const RESUMER = fileURLToPath(new URL("../src/task-resumer-main.ts", import.meta.url));
const CLI_BIN = join(dirname(createRequire(import.meta.url).resolve("@roundtrip/client")), "bin.js");
const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

function client(url: string, email: string, asked: string[] = []): Client {
  return new Client(url, {
    capabilities: WITH_TASKS,
    onElicit: (params) => {
      asked.push(params.message);
      return { action: "accept", content: { email } };
    },
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The roundtrip CLI as a user runs it, in a home of its own, without a terminal. */
function cli(home: string, args: string[]): Promise<Run> {
  return run(process.execPath, [CLI_BIN, ...args], { HOME: home, ROUNDTRIP_HOME: home, NO_COLOR: "1" });
}

describe("Roundtrip's client drives a task on Roundtrip's server", () => {
  it("to its result, answering the question the task asks mid-way", async () => {
    server = await startTaskServer();
    const asked: string[] = [];
    const statuses: string[] = [];
    const result = await client(server.url, "ops@example.com", asked).callTool(
      REPORT_TOOL,
      { quarter: "Q3" },
      { onTaskStatus: (task) => statuses.push(task.status) },
    );
    expect(result.content).toEqual([{ type: "text", text: reportText("Q3", "ops@example.com") }]);
    expect(asked).toEqual([RECIPIENT_QUESTION]);
    expect(statuses).toContain("input_required");
  });

  it("cancels it: the server's work stops, and following it throws TaskCancelledError", async () => {
    server = await startTaskServer();
    const first = client(server.url, "ops@example.com");
    const start = await first.startTool(REPORT_TOOL, { quarter: "Q4", hold: true });
    if (start.kind !== "task") throw new Error("the report was not run as a task");
    const following = first.followTask(start.task).catch((e: unknown) => e);
    // Answered through the task, the report works until it is cancelled.
    await server.holding;
    await first.cancelTask(start.task.taskId);
    await server.cancelled;
    expect(await following).toBeInstanceOf(TaskCancelledError);
  });

  it("resumes it from another process, which answers the question and gets the result", async () => {
    server = await startTaskServer();
    const start = await client(server.url, "unused@example.com").startTool(REPORT_TOOL, { quarter: "Q1" });
    if (start.kind !== "task") throw new Error("the report was not run as a task");
    const handle: TaskHandle = start.task;
    const resumed = await run(process.execPath, typescriptArgs(RESUMER), {
      TASK_SERVER: server.url,
      TASK_HANDLE: JSON.stringify(handle),
      TASK_EMAIL: "cfo@example.com",
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ text: reportText("Q1", "cfo@example.com") });
  });
});

describe("Roundtrip's CLI drives a task on Roundtrip's server", () => {
  it("to its result with --answers, and detaches, resumes in a new process and cancels", async () => {
    server = await startTaskServer();
    const home = await mkdtemp(join(tmpdir(), "roundtrip-interop-"));
    homes.push(home);
    const answers = join(home, "answers.json");
    await writeFile(answers, JSON.stringify({ recipient: { email: "ops@example.com" } }));

    const done = await cli(home, [
      "--server",
      server.url,
      "call",
      REPORT_TOOL,
      "quarter=Q2",
      "--answers",
      answers,
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(reportText("Q2", "ops@example.com"));

    const detached = await cli(home, ["--server", server.url, "call", REPORT_TOOL, "quarter=Q3", "--detach"]);
    expect(detached.code, detached.stderr).toBe(10);
    const id = detached.stderr.match(/roundtrip resume ([a-z0-9]{10})/)?.[1] ?? "";
    const resumed = await cli(home, ["resume", id, "--answers", answers]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(reportText("Q3", "ops@example.com"));

    const held = await cli(home, ["--server", server.url, "call", REPORT_TOOL, "quarter=Q4", "--detach"]);
    expect(held.code, held.stderr).toBe(10);
    const heldId = held.stderr.match(/roundtrip resume ([a-z0-9]{10})/)?.[1] ?? "";
    // Saved while it waits for its question: cancelled there, it never runs.
    const cancelled = await cli(home, ["--json", "cancel", heldId]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      status: "cancelled",
      task: { status: "cancelled" },
    });
    const listed = await cli(home, ["--json", "tasks"]);
    expect(JSON.parse(listed.stdout)).toEqual({ tasks: [] });
  });
});
