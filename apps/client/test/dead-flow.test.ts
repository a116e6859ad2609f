import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY, ptyCli } from "./support/pty-cli.js";
import { loginAsMachine, newHome, runCli } from "./support/run-cli.js";
import { type Stack, startStack } from "./support/stack.js";

// Flows saved before the reference server restarts, which then seals with a key of its new process and
// can no longer open them: the state is refused by a real server, not altered by hand.
let stack: Stack;
let home: string;

beforeAll(async () => {
  [stack, home] = await Promise.all([startStack(), newHome()]);
  const login = await loginAsMachine(stack.url, home);
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await stack?.close();
});

const DROP_QUESTION = "Drop it from `roundtrip pending`?";

async function detach(name: string): Promise<string> {
  const run = await runCli(
    ["--server", stack.url, "--json", "call", "create_service", `name=${name}`, "--detach"],
    {
      home,
    },
  );
  expect(run.code, run.stderr).toBe(10);
  return run.json<{ id: string }>().id;
}

async function pendingIds(): Promise<string[]> {
  const listed = await runCli(["--json", "pending"], { home });
  expect(listed.code, listed.stderr).toBe(0);
  return listed.json<{ pending: { id: string }[] }>().pending.map((flow) => flow.id);
}

/** `roundtrip resume <id>` in a pseudo-terminal, as a person runs it. */
const resumeInTerminal = (id: string, ...flags: string[]) => ptyCli(["resume", id, ...flags], { home });

describe("resume of a flow its restarted server cannot open", () => {
  let dropped: string;
  let kept: string;
  let unattended: string;

  beforeAll(async () => {
    [dropped, kept, unattended] = [await detach("dropped"), await detach("kept"), await detach("unattended")];
    await stack.restart();
  });

  it("in a terminal, asks before any question whether to drop it; yes drops it, exit 2", async () => {
    const cli = resumeInTerminal(dropped);
    await cli.waitFor(
      `Pending flow ${dropped} can no longer be resumed: ${stack.url} refused its saved state.`,
    );
    await cli.waitFor(`${DROP_QUESTION} (y/N)`);
    cli.type(`y${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(2);
    const screen = cli.screen();
    expect(screen).toContain(`pending flow ${dropped} can no longer be resumed`);
    expect(screen).toContain("the server restarted with a key of its own process");
    expect(screen).toContain("dropped it from `roundtrip pending`: run the call again");
    // The probe came first: none of the flow's own questions was put to the person.
    expect(screen).not.toContain("asks:");
    expect(screen).not.toContain("Answer this form?");
    expect(await pendingIds()).not.toContain(dropped);
  });

  it("in a terminal, the default answer keeps it and the line says how to drop it, exit 2", async () => {
    const cli = resumeInTerminal(kept);
    await cli.waitFor(`${DROP_QUESTION} (y/N)`);
    cli.type(KEY.enter);
    expect(await cli.exited, cli.screen()).toBe(2);
    const screen = cli.screen();
    expect(screen).toContain(`pending flow ${kept} can no longer be resumed`);
    expect(screen).toContain(`roundtrip pending --delete ${kept}`);
    expect(screen).not.toContain("dropped it");
    expect(await pendingIds()).toContain(kept);
  });

  it("Ctrl+C at the offer interrupts (exit 130) and keeps the flow", async () => {
    const cli = resumeInTerminal(kept);
    await cli.waitFor(`${DROP_QUESTION} (y/N)`);
    cli.type("\x03");
    expect(await cli.exited, cli.screen()).toBe(130);
    expect(await pendingIds()).toContain(kept);
  });

  it("with --yes in a terminal, nothing is asked and the flow is kept", async () => {
    const cli = resumeInTerminal(kept, "--yes");
    // Fails at once if the offer shows up, rather than at the test's timeout with a prompt waiting.
    await expect(cli.waitFor(DROP_QUESTION)).rejects.toThrow("the CLI exited (2) before showing");
    expect(cli.screen()).toContain(`roundtrip pending --delete ${kept}`);
    expect(await pendingIds()).toContain(kept);
  });

  it("without a terminal, nothing is asked: one line names the commands that drop it, exit 2", async () => {
    const run = await runCli(["resume", unattended], { home });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).not.toContain(DROP_QUESTION);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(`pending flow ${unattended} can no longer be resumed: ${stack.url}`);
    expect(run.stderr).toContain(`\`roundtrip pending --delete ${unattended}\``);
    expect(run.stderr).toContain("`roundtrip pending --prune`");
    expect(await pendingIds()).toContain(unattended);

    // The command it names does drop every such flow.
    const pruned = await runCli(["--json", "pending", "--prune"], { home });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(await pendingIds()).toEqual([]);
  });
});
