import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEY, ptyCli } from "./support/pty-cli.js";
import { newHome, runCli } from "./support/run-cli.js";
import {
  askingUrl,
  completeText,
  type ScriptedCall,
  type ScriptedMcp,
  startScriptedMcp,
  stateOnly,
} from "./support/scripted-mcp.js";
import { spawnCli } from "./support/spawn-cli.js";

const PAGE = "https://approve.example/releases/7";
const INFO = { name: "releases", version: "2" };

let server: ScriptedMcp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A server that waits on an approval page, as the reference server's deploy does: it asks for the URL,
 * then answers state-only rounds until the page is done, and asks for the same URL again in between.
 * The page is done once `approvedAfter` calls have come in (never, by default).
 */
function approvalServer(approvedAfter = Number.POSITIVE_INFINITY) {
  return startScriptedMcp({
    serverInfo: INFO,
    answer: (_call: ScriptedCall, index: number) => {
      if (index === 0) return askingUrl("approval", "Approve release 7", PAGE, "ask");
      if (index >= approvedAfter) return completeText("release 7 deployed");
      return index % 2 === 0
        ? askingUrl("approval", "Approve release 7", PAGE, `ask-${index}`)
        : stateOnly(`wait-${index}`);
    },
  });
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("waiting for a page the person agreed to open", () => {
  it("asks once, then polls the same URL without asking again, saying what it waits for", async () => {
    server = await approvalServer(3);
    const cli = ptyCli(["--server", server.url, "call", "deploy", "--no-browser"], { home: await newHome() });
    await cli.waitFor("Go to this page?");
    // "I will open it myself": the only choice without a browser that consents.
    cli.type(KEY.enter);
    await cli.waitFor("waiting for approval at approve.example — Ctrl-C to detach");
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("release 7 deployed");
    expect(count(cli.screen(), "asks you to open a web page:")).toBe(1);
    // The server asked the URL again at call 2: the consent was sent again for it, not asked.
    expect(server.calls.map((call) => call.params.inputResponses)).toEqual([
      undefined,
      { approval: { action: "accept" } },
      undefined,
      { approval: { action: "accept" } },
    ]);
    expect(server.calls.map((call) => call.params.requestState)).toEqual([
      undefined,
      "ask",
      "wait-1",
      "ask-2",
    ]);
  });

  it("Ctrl-C while waiting saves the flow to resume, naming the page", async () => {
    server = await approvalServer();
    const home = await newHome();
    const cli = ptyCli(["--server", server.url, "call", "deploy", "--no-browser"], { home });
    await cli.waitFor("Go to this page?");
    cli.type(KEY.enter);
    await cli.waitFor("Ctrl-C to detach");
    cli.type("\x03");
    expect(await cli.exited, cli.screen()).toBe(10);
    expect(cli.screen()).toContain('the server waits for "approval"');
    expect(cli.screen()).toContain(`"approval": open ${PAGE} (Approve release 7)`);
    expect(await readdir(join(home, "pending"))).toHaveLength(1);
  });
});

describe("rounds, as -v shows them", () => {
  it("prints each round's asked and answered keys, and plain status lines without a terminal", async () => {
    server = await approvalServer(3);
    const home = await newHome();
    const run = await runCli(["--server", server.url, "-v", "call", "deploy", "--yes"], { home });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split("\n");
    expect(lines.filter((line) => line.startsWith("⇄ "))).toEqual([
      "⇄ round 1: tools/call deploy → asks for approval (URL https://approve.example/releases/7)",
      "⇄ round 2: tools/call deploy answering approval (+requestState) → state only, nothing to answer: the server is still working",
      "⇄ round 3: tools/call deploy (+requestState) → asks for approval (URL https://approve.example/releases/7)",
      "⇄ round 4: tools/call deploy answering approval (+requestState) → the result",
    ]);
    // Without a terminal a wait is one plain line, however many polls it takes: no spinner, no CR.
    expect(count(run.stderr, "waiting for approval at approve.example — Ctrl-C to detach\n")).toBe(1);
    expect(run.stderr).not.toContain("\r");
    expect(run.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(run.stdout).toBe("release 7 deployed\n");

    // --json: stderr keeps nothing of the rounds or the waits.
    server.calls.length = 0;
    const json = await runCli(["--server", server.url, "-v", "--json", "call", "deploy", "--yes"], { home });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).not.toContain("⇄");
    expect(json.stderr).not.toContain("waiting for");
  });
});

describe("a release rejected on the page", () => {
  it("prints the tool's error result as it came, and exits with the tool-error code", async () => {
    const rejected = "Release rel-7 was rejected by alice: freeze until the audit";
    server = await startScriptedMcp({
      serverInfo: INFO,
      answer: (_call: ScriptedCall, index: number) =>
        index === 0
          ? askingUrl("approval", "Approve release 7", PAGE, "ask")
          : {
              result: { resultType: "complete", content: [{ type: "text", text: rejected }], isError: true },
            },
    });
    const home = await newHome();
    const run = await runCli(["--server", server.url, "call", "deploy", "--yes"], { home });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stdout).toBe(`${rejected}\n`);

    const json = await runCli(["--server", server.url, "--json", "call", "deploy", "--yes"], { home });
    expect(json.code, json.stderr).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: "complete",
      result: { isError: true, content: [{ type: "text", text: rejected }] },
    });
  });
});

describe("status lines while a request is out", () => {
  it("says it waits for a slow server, then that the server is still working on a state-only round", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await startScriptedMcp({
      serverInfo: INFO,
      // The first answer waits until the CLI has said it is waiting, so no clock decides the test.
      answer: async (_call, index) => {
        if (index > 0) return completeText("built");
        await held;
        return stateOnly("building");
      },
    });
    const host = new URL(server.url).host;
    const cli = spawnCli(["--server", server.url, "call", "build"], { home: await newHome() });
    await cli.waitForStderr(new RegExp(`waiting for ${host.replaceAll(".", "\\.")}…\n`));
    release();
    expect(await cli.exited, cli.stderr()).toBe(0);
    expect(cli.stdout()).toBe("built\n");
    const lines = cli.stderr().split("\n");
    expect(lines).toContain(`waiting for ${host}…`);
    expect(lines).toContain(`${host} is still working…`);
    // The state-only round is said after the slow one: it is what the second request waited on.
    expect(lines.indexOf(`${host} is still working…`)).toBeGreaterThan(lines.indexOf(`waiting for ${host}…`));
    expect(server.calls.map((call) => call.params.requestState)).toEqual([undefined, "building"]);
  });
});
