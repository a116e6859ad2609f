import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelStandIn, openAiStandIn } from "./support/model-stand-ins.js";
import { KEY, ptyCli } from "./support/pty-cli.js";
import { APP_DIR, loginAsMachine, newHome, runCli } from "./support/run-cli.js";
import { type Stack, startStack } from "./support/stack.js";

let stack: Stack;
let home: string;
let model: ModelStandIn;
let host: string;

beforeAll(async () => {
  [stack, home, model] = await Promise.all([startStack(), newHome(), openAiStandIn(undefined)]);
  host = new URL(stack.url).host;
  const login = await loginAsMachine(stack.url, home);
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await Promise.all([stack?.close(), model?.close()]);
});

const run = (args: string[], env: Record<string, string> = {}) =>
  ptyCli(["--server", stack.url, "--json", ...args], { home, env });

describe("questions in a terminal", () => {
  it("a form with every field type: validation as typed, review, edit, send", async () => {
    const cli = run(["call", "signup"]);
    await cli.waitFor(`roundtrip 0.0.0-test (${host}) asks: Tell us about yourself`);
    await cli.waitFor("Answer this form?");
    cli.type(KEY.enter);
    await cli.waitFor("Name");
    cli.type(`A${KEY.enter}`);
    await cli.waitFor("must be at least 2 characters");
    cli.type(`da${KEY.enter}`);
    await cli.waitFor("Email [email]");
    cli.type(`ada${KEY.enter}`);
    await cli.waitFor("must be an email address");
    cli.type(`@example.com${KEY.enter}`);
    await cli.waitFor("Birthday [date, optional]");
    cli.type(KEY.enter);
    await cli.waitFor("Age [18 to 99]");
    cli.type(`17${KEY.enter}`);
    await cli.waitFor("must be at least 18");
    cli.type(`${KEY.backspace}${KEY.backspace}36${KEY.enter}`);
    await cli.waitFor("Ratio [0 to 1, optional]");
    cli.type(KEY.enter);
    await cli.waitFor("Newsletter");
    cli.type(`y${KEY.enter}`);
    await cli.waitFor("Plan");
    await cli.waitFor("Professional");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("Color");
    cli.type(KEY.enter);
    await cli.waitFor("Tags");
    cli.type(KEY.enter);
    await cli.waitFor("needs at least 1 choice");
    cli.type(`${KEY.space}${KEY.down}${KEY.down}${KEY.space}${KEY.enter}`);
    await cli.waitFor("Teams [optional]");
    cli.type(KEY.enter);
    await cli.waitFor("Review your answers");
    await cli.waitFor("Plan: Professional");
    await cli.waitFor("Color: green");
    await cli.waitFor("Send these answers?");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("Which answer?");
    cli.type(`${KEY.down.repeat(7)}${KEY.enter}`);
    await cli.waitFor("Color");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("Color: blue");
    await cli.waitFor("Send these answers?");
    cli.type(KEY.enter);
    expect(await cli.exited, cli.screen()).toBe(0);
    const sent = /signed up (\{.*\})"$/m.exec(cli.screen().replace(/\\"/g, '"'))?.[1];
    expect(JSON.parse(sent ?? "null")).toEqual({
      name: "Ada",
      email: "ada@example.com",
      age: 36,
      ratio: 0.5,
      newsletter: true,
      plan: "pro",
      color: "blue",
      tags: ["a", "c"],
    });
  });

  it("decline and cancel are answers the server receives", async () => {
    const declined = run(["call", "signup"]);
    await declined.waitFor("Answer this form?");
    declined.type(`${KEY.down}${KEY.enter}`);
    expect(await declined.exited).toBe(7);
    expect(declined.screen()).toContain("signup declined");

    // create_service: two forms in one round; cancelling the second at its review ends the call with a tool error.
    const cancelled = run(["call", "create_service", "name=api"]);
    await cancelled.waitFor("Answer this form?");
    cancelled.type(KEY.enter);
    await cancelled.waitFor("Runtime");
    cancelled.type(KEY.enter);
    await cancelled.waitFor("Send these answers?");
    cancelled.type(KEY.enter);
    await cancelled.waitFor("Answer this form?");
    cancelled.type(KEY.enter);
    await cancelled.waitFor("Instance size");
    cancelled.type(KEY.enter);
    await cancelled.waitFor("Send these answers?");
    cancelled.type(`${KEY.down}${KEY.down}${KEY.down}${KEY.enter}`);
    expect(await cancelled.exited, cancelled.screen()).toBe(5);
    expect(cancelled.screen()).toContain('"isError": true');

    // Ctrl+C at a question stops the CLI and sends nothing more.
    const interrupted = run(["call", "signup"]);
    await interrupted.waitFor("Answer this form?");
    interrupted.type("\x03");
    expect(await interrupted.exited).toBe(130);
  });

  it("a URL is shown whole with its domain highlighted, and opened only after consent", async () => {
    const opened = join(home, "opened.txt");
    const browser = join(home, "browser.sh");
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`);
    await chmod(browser, 0o700);
    const cli = run(["call", "visit"], { BROWSER: browser });
    await cli.waitFor("asks you to open a web page:");
    await cli.waitFor("│ Review the change");
    // Without colours the URL is printed whole, as it can be copied, and the host on a line of its own.
    await cli.waitFor("URL:  https://review.example.com/changes/42?tab=diff\r\n");
    await cli.waitFor("Host: review.example.com ");
    await cli.waitFor("Go to this page?");
    await expect(readFile(opened, "utf8")).rejects.toThrow();
    cli.type(KEY.enter);
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("page accepted");
    let url: string | undefined;
    for (let i = 0; i < 500 && url === undefined; i++) {
      url = await readFile(opened, "utf8").catch(() => undefined);
      if (url === undefined) await sleep(20);
    }
    expect(url).toBe("https://review.example.com/changes/42?tab=diff");
  });

  it("a browser that cannot be started is said, and the flow goes on with the URL to copy", async () => {
    const cli = run(["call", "visit"], { BROWSER: join(home, "no-such-browser") });
    await cli.waitFor("Go to this page?");
    cli.type(KEY.enter);
    await cli.waitFor("couldn't open a browser; copy the URL above");
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("page accepted");
  });

  it("a form of one yes-or-no field is one y/N question", async () => {
    const file = join(home, "choices.json");
    await writeFile(file, JSON.stringify({ runtime: { runtime: "node22" }, tier: { tier: "small" } }));
    const cli = run(["call", "create_service", "name=api", "--answers", file]);
    await cli.waitFor("asks: Create api on node22, size small?");
    await cli.waitFor("confirm (Create it) (y/N)");
    cli.type(`y${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("Created service api on node22, size small");
    expect(cli.screen()).not.toContain("Answer this form?");
    expect(cli.screen()).not.toContain("Send these answers?");
  });

  it("resume --detach asks the saved round's questions here and detaches at the next round", async () => {
    const detached = await runCli(
      ["--server", stack.url, "--json", "call", "create_service", "name=later", "--detach"],
      {
        home,
      },
    );
    expect(detached.code, detached.stderr).toBe(10);
    const { id } = JSON.parse(detached.stdout) as { id: string };
    const file = join(home, "runtime-only.json");
    await writeFile(file, JSON.stringify({ runtime: { runtime: "node22" } }));
    const cli = run(["resume", id, "--detach", "--answers", file]);
    // The saved round's size is asked in the terminal rather than the flow being saved again unchanged.
    await cli.waitFor("Which size should later run on?");
    await cli.waitFor("Answer this form?");
    cli.type(KEY.enter);
    await cli.waitFor("tier (Instance size)");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("Send these answers?");
    cli.type(KEY.enter);
    // The next round (the confirmation, which quotes both answers) is where --detach saves the flow.
    expect(await cli.exited, cli.screen()).toBe(10);
    const saved = JSON.parse(await readFile(join(home, "pending", `${id}.json`), "utf8")) as {
      waiting: string[];
      inputRequests: Record<string, { params: { message: string } }>;
    };
    expect(saved.waiting).toEqual(["confirmation"]);
    expect(saved.inputRequests.confirmation?.params.message).toBe("Create later on node22, size medium?");
  });

  it("--no-browser offers no browser; declining a URL is sent as decline", async () => {
    const cli = run(["call", "visit", "--no-browser"]);
    await cli.waitFor("Go to this page?");
    await cli.waitFor("I will open it myself");
    expect(cli.screen()).not.toContain("Open it in my browser");
    cli.type(`${KEY.down}${KEY.enter}`);
    expect(await cli.exited).toBe(7);
    expect(cli.screen()).toContain("page declined");
  });

  it("sampling by a person: the request is shown, then the typed reply is returned", async () => {
    const cli = run(["call", "haiku"]);
    await cli.waitFor("asks for a completion from your language model");
    await cli.waitFor("System prompt: You are a poet.");
    await cli.waitFor("user: Write a haiku about retries");
    await cli.waitFor('Limits: max 64 tokens, temperature 0.2, stop at "END"');
    await cli.waitFor("Model preferences: hints hinted-model; speed 0.8");
    await cli.waitFor("Answer it yourself?");
    cli.type(KEY.enter);
    await cli.waitFor("Your reply:");
    cli.type(`ping pong${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("poem by human (endTurn): ping pong");
  });

  it("sampling by a model: edit the request, edit the reply; or refuse (exit 6)", async () => {
    const provider = [
      "--sampling-provider",
      "openai",
      "--sampling-base-url",
      model.baseUrl,
      "--sampling-model",
      "tiny",
    ];
    const cli = run(["call", "haiku", ...provider]);
    await cli.waitFor("Send it to openai-compatible tiny");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("System prompt:");
    cli.type(`Be brief.${KEY.enter}`);
    await cli.waitFor("Message 1 (user):");
    cli.type(KEY.enter);
    await cli.waitFor("Reply from tiny-0001: openai says");
    await cli.waitFor("Return this reply to");
    cli.type(`${KEY.down}${KEY.enter}`);
    await cli.waitFor("Reply:");
    cli.type(`${KEY.backspace.repeat(40)}edited verse${KEY.enter}`);
    expect(await cli.exited, cli.screen()).toBe(0);
    expect(cli.screen()).toContain("poem by tiny-0001 (endTurn): edited verse");
    expect(model.seen.at(-1)?.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Write a haiku about retries" },
    ]);

    const seen = model.seen.length;
    const refused = run(["call", "haiku", ...provider]);
    await refused.waitFor("Send it to openai-compatible tiny");
    refused.type(`${KEY.down}${KEY.down}${KEY.enter}`);
    expect(await refused.exited).toBe(6);
    expect(refused.screen()).toContain("you refused the sampling request");
    expect(model.seen.length).toBe(seen);
  });

  it("roots: without --root the terminal asks before sharing the working directory; the default shares none", async () => {
    const shared = run(["call", "list_workspace"]);
    await shared.waitFor("Share the working directory");
    shared.type(`y${KEY.enter}`);
    expect(await shared.exited, shared.screen()).toBe(0);
    expect(shared.screen()).toContain(pathToFileURL(APP_DIR).href.replace(/\/$/, ""));
    const kept = run(["call", "list_workspace"]);
    await kept.waitFor("Share the working directory");
    kept.type(KEY.enter);
    expect(await kept.exited, kept.screen()).toBe(0);
    expect(kept.screen()).toContain("The client shares no roots");
  });
});
