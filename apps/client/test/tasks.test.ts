import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEY, ptyCli } from "./support/pty-cli.js";
import { newHome, runCli, writeAnswers } from "./support/run-cli.js";
import { spawnCli } from "./support/spawn-cli.js";
import { startTaskServer, type TaskServer } from "./support/task-server.js";

/** Calls a server runs as tasks: shown as they go, detached, listed, resumed and cancelled. */

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ESC = String.fromCharCode(27);
const VERSION = { version: { version: "1.2" } };

async function taskServer(): Promise<TaskServer> {
  server = await startTaskServer();
  return server;
}

function savedId(stderr: string): string {
  const match = stderr.match(/Saved as task ([a-z0-9]{10})/);
  if (!match?.[1]) throw new Error(`no saved task in: ${stderr}`);
  return match[1];
}

describe("a call the server runs as a task", () => {
  it("follows it to its result, answering its question, with one plain line per status and no peer controls", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const run = await runCli(
      ["--server", url, "call", "release", "--answers", await writeAnswers(home, VERSION)],
      {
        home,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("released 1.2");
    expect(run.stderr).toContain("task working");
    expect(run.stderr).not.toContain(ESC);
  });

  it("with --no-tasks a tool that may run as a task is answered in rounds, and one that must is refused", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const answers = await writeAnswers(home, VERSION);
    const tasked = await runCli(["--server", url, "-v", "call", "tag", "--answers", answers], { home });
    expect(tasked.code, tasked.stderr).toBe(0);
    expect(tasked.stdout).toContain("tagged 1.2");
    expect(tasked.stderr).toContain("task working");
    const direct = await runCli(["--server", url, "-v", "call", "tag", "--no-tasks", "--answers", answers], {
      home,
    });
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout).toContain("tagged 1.2");
    expect(direct.stderr).not.toContain("task working");
    expect(direct.stderr).toContain("⇄ round 2: tools/call tag answering version");
    const refused = await runCli(["--server", url, "call", "release", "--no-tasks", "--answers", answers], {
      home,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("io.modelcontextprotocol/tasks");
  });

  it("--detach saves the task (0600), `tasks` lists it, and `resume` from a new process finishes it", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const detached = await runCli(["--server", url, "call", "release", "--detach"], { home });
    expect(detached.code, detached.stderr).toBe(10);
    const id = savedId(detached.stderr);
    expect(detached.stderr).toContain(`roundtrip resume ${id}`);
    const file = join(home, "pending", `${id}.task.json`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const listed = await runCli(["tasks", "--json"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json()).toEqual({
      tasks: [expect.objectContaining({ id, server: url, tool: "release", status: expect.any(String) })],
    });
    // The task id is a bearer capability: kept in the file, never shown.
    const { task } = JSON.parse(await readFile(file, "utf8")) as { task: { taskId: string } };
    expect(listed.stdout).not.toContain(task.taskId);
    const text = await runCli(["tasks"], { home });
    expect(text.stdout).toContain(`${id}  `);
    expect(text.stdout).toContain("release");

    const resumed = await runCli(["resume", id, "--answers", await writeAnswers(home, VERSION)], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("released 1.2");
    expect((await runCli(["tasks", "--json"], { home })).json()).toEqual({ tasks: [] });
  });

  it("a question nobody can answer (no terminal, no --answers) exits 4 and saves the task to resume", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const unanswered = await runCli(["--server", url, "call", "release"], { home });
    expect(unanswered.code, unanswered.stderr).toBe(4);
    const id = unanswered.stderr.match(/The task goes on on the server, saved as ([a-z0-9]{10})/)?.[1];
    expect(id, unanswered.stderr).toBeDefined();
    const resumed = await runCli(["resume", id ?? "", "--answers", await writeAnswers(home, VERSION)], {
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("released 1.2");
  });

  it("`cancel` stops a saved task on its server and forgets it", async () => {
    const running = await taskServer();
    const home = await newHome();
    const answers = await writeAnswers(home, VERSION);
    const call = spawnCli(["--server", running.url, "call", "release", "hold:=true", "--answers", answers], {
      home,
    });
    await call.waitForStderr(/task working: Building image/);
    call.child.kill("SIGINT");
    expect(await call.exited, call.stderr()).toBe(10);
    // Without a terminal, Ctrl-C detaches, and says so.
    expect(call.stderr()).toContain("Ctrl-C, and no terminal to ask whether to cancel: detaching");
    const id = savedId(call.stderr());
    const cancelled = await runCli(["cancel", id, "--json"], { home });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.json()).toEqual({ status: "cancelled", id, task: { status: "cancelled" } });
    await running.cancelled;
    expect((await runCli(["tasks", "--json"], { home })).json()).toEqual({ tasks: [] });
  });

  it("`cancel` of a task its server no longer knows says so and keeps the file", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const detached = await runCli(["--server", url, "call", "release", "--detach"], { home });
    const id = savedId(detached.stderr);
    const file = join(home, "pending", `${id}.task.json`);
    const saved = JSON.parse(await readFile(file, "utf8")) as { task: { taskId: string } };
    saved.task.taskId = "a-task-this-server-never-made";
    await writeFile(file, JSON.stringify(saved));
    const cancel = await runCli(["cancel", id], { home });
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain(`no longer knows saved task ${id}`);
    expect(cancel.stderr).toContain(`Delete ${file} to forget it`);
    expect((await stat(file)).isFile()).toBe(true);
  });

  it("`resume` of a task its server no longer knows says so, names the file, and does not save it again", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const detached = await runCli(["--server", url, "call", "release", "--detach"], { home });
    const id = savedId(detached.stderr);
    const file = join(home, "pending", `${id}.task.json`);
    const saved = JSON.parse(await readFile(file, "utf8")) as { task: { taskId: string } };
    saved.task.taskId = "a-task-this-server-never-made";
    const edited = JSON.stringify(saved);
    await writeFile(file, edited);
    const resumed = await runCli(["resume", id], { home });
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain(`no longer knows saved task ${id}`);
    expect(resumed.stderr).toContain(`Delete ${file} to forget it`);
    expect(resumed.stderr).not.toContain("goes on on the server");
    expect(await readFile(file, "utf8")).toBe(edited);
  });

  it("refuses to cancel an id it never saved", async () => {
    const home = await newHome();
    const cancel = await runCli(["cancel", "abcdefghij"], { home });
    expect(cancel.code).toBe(2);
    expect(cancel.stderr).toContain("no saved task");
  });
});

describe("a task followed on a terminal", () => {
  it("shows the server's statusMessage on one line, escaped, and Ctrl-C then detach saves it", async () => {
    const { url } = await taskServer();
    const home = await newHome();
    const answers = await writeAnswers(home, VERSION);
    const cli = ptyCli(["--server", url, "call", "release", "hold:=true", "--answers", answers], { home });
    await cli.waitFor("task working: Building image");
    await cli.waitFor("Ctrl-C to cancel or detach");
    expect(cli.raw()).not.toContain(`${ESC}]0;owned`);
    expect(cli.raw()).not.toContain(`${ESC}[2J`);
    cli.type("\x03");
    await cli.waitFor("Stop following the task?");
    cli.type(KEY.enter);
    expect(await cli.exited, cli.screen()).toBe(10);
    const id = savedId(cli.screen());

    // Resumed in a new process on a terminal, it goes on to its result once the server finishes.
    const resumed = ptyCli(["resume", id], { home });
    await resumed.waitFor("task working: Building image");
    server?.finish();
    expect(await resumed.exited, resumed.screen()).toBe(0);
    expect(resumed.screen()).toContain("released 1.2");
  });

  it("asks the task's question in the terminal, and Ctrl-C then cancel stops the task", async () => {
    const running = await taskServer();
    const home = await newHome();
    const cli = ptyCli(["--server", running.url, "call", "release", "hold:=true"], { home });
    await cli.waitFor("Answer this form?");
    cli.type(KEY.enter);
    await cli.waitFor("version");
    cli.type(`2.0${KEY.enter}`);
    await cli.waitFor("Send these answers?");
    cli.type(KEY.enter);
    await cli.waitFor("task working: Building image");
    cli.type("\x03");
    await cli.waitFor("Stop following the task?");
    cli.type(`${KEY.down}${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(130);
    expect(cli.screen()).toContain("you cancelled the task");
    await running.cancelled;
    expect((await runCli(["tasks", "--json"], { home })).json()).toEqual({ tasks: [] });
  });

  it("holds the task's question while the Ctrl-C choice is open, and asks it once the person keeps following", async () => {
    const running = await taskServer();
    const home = await newHome();
    const answers = await writeAnswers(home, VERSION);
    const cli = ptyCli(["--server", running.url, "call", "review", "--answers", answers], { home });
    await cli.waitFor("task working: Reviewing the diff");
    cli.type("\x03");
    await cli.waitFor("Stop following the task?");
    running.askReview();
    const taskId = running.store.last ?? "";
    while ((await running.store.get(taskId))?.status !== "input_required") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A whole process run, many poll intervals: a follower not held would have answered meanwhile.
    expect((await runCli(["tasks", "--json"], { home })).json()).toEqual({ tasks: [] });
    expect(running.reviewAnswered()).toBe(false);
    expect(cli.screen()).not.toContain("Approve the review?");
    cli.type(`${KEY.down}${KEY.down}${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("reviewed 1.2");
  });

  it("a cancel chosen at Ctrl-C that fails saves the task and says how to cancel it later", async () => {
    const running = await taskServer();
    const home = await newHome();
    const answers = await writeAnswers(home, VERSION);
    const cli = ptyCli(["--server", running.url, "call", "release", "hold:=true", "--answers", answers], {
      home,
    });
    await cli.waitFor("task working: Building image");
    running.store.refuseCancel = true;
    cli.type("\x03");
    await cli.waitFor("Stop following the task?");
    cli.type(`${KEY.down}${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(1);
    expect(cli.screen()).toContain("cancelling the task failed");
    const id = cli.screen().match(/`roundtrip cancel ([a-z0-9]{10})` stops it/)?.[1];
    expect(id, cli.screen()).toBeDefined();
    expect((await runCli(["tasks", "--json"], { home })).json()).toEqual({
      tasks: [expect.objectContaining({ id, tool: "release" })],
    });
    running.store.refuseCancel = false;
    const cancelled = await runCli(["cancel", id ?? "", "--json"], { home });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await running.cancelled;
  });
});
