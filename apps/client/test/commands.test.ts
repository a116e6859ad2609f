import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { refusedPort } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_DIR, loginAsMachine, newHome, runCli, writeAnswers } from "./support/run-cli.js";
import { startScriptedMcp } from "./support/scripted-mcp.js";
import { type Stack, startStack } from "./support/stack.js";

let stack: Stack;
let home: string;

beforeAll(async () => {
  stack = await startStack();
  home = await newHome();
  const login = await loginAsMachine(stack.url, home);
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await stack?.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(["--server", stack.url, "--json", ...args], { home, env });

const answers = (content: unknown) => writeAnswers(home, content);

describe("commands against the reference server", () => {
  it("login with client credentials caches the tokens in private files, and never prints them", async () => {
    const tokensDir = join(home, "tokens");
    expect((await stat(tokensDir)).mode & 0o777).toBe(0o700);
    const logins = await stat(join(home, "logins.json"));
    expect(logins.mode & 0o777).toBe(0o600);
    const status = await cli([
      "login",
      "--client-id",
      "mcp-machine",
      "--client-secret",
      "mcp-machine-secret",
    ]);
    expect(status.code).toBe(0);
    const summary = status.json();
    expect(summary).toMatchObject({
      status: "logged-in",
      grant: "client_credentials",
      clientId: "mcp-machine",
      issuer: stack.as.issuer,
    });
    expect(status.stdout + status.stderr).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });

  it("tools lists the server's tools", async () => {
    const run = await cli(["tools"]);
    expect(run.code, run.stderr).toBe(0);
    const names = run.json<{ tools: { name: string }[] }>().tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["create_service", "summarize", "list_workspace", "deploy", "signup"]),
    );
    const text = await runCli(["--server", stack.url, "tools"], { home });
    expect(text.stdout).toMatch(/^create_service\s+Creates a service/m);
  });

  it("call answers two rounds of forms from --answers and completes", async () => {
    const file = await answers({
      runtime: { runtime: "node22" },
      tier: { tier: "small" },
      confirmation: { confirm: true },
    });
    const run = await cli(["call", "create_service", "name=api", "--answers", file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({
      status: "complete",
      result: { content: [{ type: "text", text: "Created service api on node22, size small" }] },
    });
  });

  it("call takes JSON arguments, and decline is an answer", async () => {
    const file = await answers({
      runtime: { runtime: "node20" },
      tier: { tier: "large" },
      confirmation: "decline",
    });
    const run = await cli(["call", "create_service", '{"name":"web"}', "--answers", file]);
    expect(run.code, run.stderr).toBe(7);
    expect(JSON.stringify(run.json())).toContain("Service web was not created");
    expect(run.json()).toMatchObject({ status: "complete", declined: ["confirmation"] });
    expect(run.stderr).toContain('You declined or cancelled "confirmation"');
  });

  it("argument names the tool does not declare and values its input schema refuses exit 2 before the call, with nothing sent", async () => {
    const typo = await cli(["call", "create_service", "nmae=api"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('create_service has no argument "nmae"; it takes name');
    const extra = await cli(["call", "create_service", '{"name":"web","size":"xl"}']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('no argument "size"');
    const wrongType = await cli(["call", "create_service", "name:=5"]);
    expect(wrongType.code, wrongType.stderr).toBe(2);
    expect(wrongType.json()).toMatchObject({ status: "error", exitCode: 2 });
    // Checked against the tool's input schema by the validator the server runs, so nothing is sent.
    expect(wrongType.stderr).toMatch(/create_service refuses these arguments: field 'name': .*string/);
    expect(wrongType.stderr).toContain("nothing was sent");
  });

  it("a missing answer without a terminal fails with exit 4 naming the key", async () => {
    const file = await answers({ runtime: { runtime: "node22" } });
    const run = await cli(["call", "create_service", "name=api", "--answers", file]);
    expect(run.code).toBe(4);
    expect(run.json()).toMatchObject({ status: "error", exitCode: 4 });
    expect(run.stderr).toContain('"tier"');
  });

  it("an answer that does not fit the form is a usage error naming key and field", async () => {
    const file = await answers({ runtime: { runtime: "java" }, tier: { tier: "small" } });
    const run = await cli(["call", "create_service", "name=api", "--answers", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"runtime".*"runtime" must be one of node20, node22, python3.12/);
  });

  it("every field type of the restricted schema is checked in --answers", async () => {
    const good = {
      name: "Ada",
      email: "ada@example.com",
      birthday: "1990-02-28",
      age: 36,
      plan: "pro",
      tags: ["a", "c"],
      teams: ["ops"],
      newsletter: true,
    };
    const run = await cli(["call", "signup", "--answers", await answers({ profile: good })]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain('signed up {\\"name\\":\\"Ada\\"');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...good, email: "nope" }, /"email" must be an email address/],
      [{ ...good, birthday: "1990-02-30" }, /"birthday" must be a date/],
      [{ ...good, age: 17 }, /"age" must be at least 18/],
      [{ ...good, tags: ["a", "b", "c"] }, /"tags" allows at most 2/],
      [{ name: "Ada" }, /"email" is required/],
    ];
    for (const [content, message] of cases) {
      const bad = await cli(["call", "signup", "--answers", await answers({ profile: content })]);
      expect(bad.code, JSON.stringify(content)).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
    // Two mistakes are both named in the one refusal.
    const twice = await cli([
      "call",
      "signup",
      "--answers",
      await answers({ profile: { ...good, email: "nope", age: 17 } }),
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/"email" must be an email address[^;]*; "age" must be at least 18/);
  });

  it("--yes sends a form at its defaults only when they satisfy it", async () => {
    const run = await cli(["call", "signup", "--yes"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('"profile"');
  });

  it("prompt and read run their rounds too", async () => {
    const prompt = await cli([
      "prompt",
      "incident_brief",
      "service=db",
      "--answers",
      await answers({ severity: { severity: "sev2" } }),
    ]);
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(JSON.stringify(prompt.json())).toContain("Write a sev2 incident brief for db");
    const read = await cli([
      "read",
      "status://api",
      "--answers",
      await answers({ window: { window: "24h" } }),
    ]);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.stringify(read.json())).toContain("api: operational over the last 24h");
    const text = await runCli(
      [
        "--server",
        stack.url,
        "read",
        "status://api",
        "--answers",
        await answers({ window: { window: "7d" } }),
      ],
      { home },
    );
    expect(text.stdout.trim()).toBe("api: operational over the last 7d, no incidents recorded");
  });

  it("roots are the --root directories as file URIs with names, and none without --root", async () => {
    const docs = join(home, "docs");
    await mkdir(docs, { recursive: true });
    const run = await cli(["call", "list_workspace", "--root", docs, "--root", APP_DIR]);
    expect(run.code, run.stderr).toBe(0);
    const text = JSON.stringify(run.json());
    expect(text).toContain(`docs: ${pathToFileURL(docs).href}`);
    expect(text).toContain(`client: ${pathToFileURL(APP_DIR).href.replace(/\/$/, "")}`);
    const byDefault = await cli(["call", "list_workspace"]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(JSON.stringify(byDefault.json())).toContain("The client shares no roots");
    expect(JSON.stringify(byDefault.json())).not.toContain(pathToFileURL(APP_DIR).href.replace(/\/$/, ""));
    expect(byDefault.stderr).toContain("none are shared (--root <dir> shares one)");
    const missing = await cli(["call", "list_workspace", "--root", join(home, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such directory");
  });

  it("URL elicitation: --answers accept consents without opening anything", async () => {
    const run = await cli(["call", "visit", "--answers", await answers({ page: "accept" })]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain("page accepted");
  });

  it("a tool that needs another scope: the SDK steps up on 403 and the flow goes on", async () => {
    const run = await cli([
      "call",
      "deploy",
      "service=api",
      "env=staging",
      "--answers",
      await answers({ confirm: "decline" }),
    ]);
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toContain("refused the request for lack of scope (it needs");
    expect(run.stderr).toContain("signing in again to ask for it");
    expect(JSON.stringify(run.json())).toMatch(/Deployment of rel-[0-9a-f]{32} declined/);
  });

  it("prompts, resources and tools --long describe what the server offers", async () => {
    const prompts = await runCli(["--server", stack.url, "prompts"], { home });
    expect(prompts.code, prompts.stderr).toBe(0);
    expect(prompts.stdout).toContain("incident_brief (Incident brief)");
    expect(prompts.stdout).toContain("  service (required): The affected service");
    const resources = await cli(["resources"]);
    expect(resources.code, resources.stderr).toBe(0);
    // Its one static resource is its deploy runbook, served as a skill's file.
    expect(resources.json()).toMatchObject({
      resources: [expect.objectContaining({ uri: "skill://deploy-runbook/SKILL.md" })],
      resourceTemplates: [expect.objectContaining({ uriTemplate: "status://{service}" })],
    });
    const long = await runCli(["--server", stack.url, "tools", "--long"], { home });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toMatch(/^deploy \(Deploy a service\)$/m);
    expect(long.stdout).toContain("annotations: destructiveHint=true, openWorldHint=false");
    expect(long.stdout).toMatch(/^ {4}name \(string, required\): Service name/m);
  });

  it("--stdio runs a command as the server: every command, its static resources and its rounds", async () => {
    const stdio = ["--stdio", `node ${join(APP_DIR, "test", "support", "stdio-server.mjs")}`];
    const long = await runCli([...stdio, "tools", "--long"], { home });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toContain("echo (Echo)");
    expect(long.stdout).toContain("    text (string, required): What to say");
    expect(long.stdout).toContain("    times (integer, optional): How often");
    expect(long.stdout).toContain("annotations: readOnlyHint=true");
    const resources = await runCli([...stdio, "resources"], { home });
    expect(resources.stdout).toMatch(
      /Resources:\n {2}notes:\/\/readme {2}readme: The notes' readme \(text\/plain\)/,
    );
    expect(resources.stdout).toMatch(
      /Templates \(fill in each \{variable\}, then read\):\n {2}notes:\/\/\{id\} {2}note: One note/,
    );
    const prompts = await runCli([...stdio, "prompts"], { home });
    expect(prompts.stdout).toContain("  who (required): Whom to greet");
    const call = await runCli([...stdio, "--json", "call", "echo", "text=hi", "times=2"], { home });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.stringify(call.json())).toContain("hi hi");
    const read = await runCli([...stdio, "read", "notes://7"], { home });
    expect(read.stdout).toContain("note 7");
    const asked = await runCli(
      [...stdio, "call", "confirm", "--answers", await answers({ sure: { ok: true } })],
      {
        home,
      },
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain("confirm accepted");
    const detach = await runCli([...stdio, "call", "confirm", "--detach"], { home });
    expect(detach.code).toBe(2);
    const both = await runCli([...stdio, "--server", stack.url, "tools"], { home });
    expect(both.code).toBe(2);
  });

  it("a server that is not running is named with its URL and the reason, exit 1", async () => {
    const url = `http://127.0.0.1:${await refusedPort()}/mcp`;
    const run = await runCli(["--server", url, "tools"], { home: await newHome() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach ${url} (ECONNREFUSED): `);
    expect(run.stderr).toContain("check the URL and that the server runs");
  });

  it("usage errors, --version and help", async () => {
    const version = await runCli(["--version"], { home });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe("0.1.0");
    const help = await runCli(["--help"], { home });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
    const unknown = await runCli(["frobnicate"], { home });
    expect(unknown.code).toBe(2);
    const noServer = await runCli(["tools"], { home });
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('pass --server URL (or --stdio "<command>"), set ROUNDTRIP_SERVER');
    const callHelp = await runCli(["call", "--help"], { home });
    expect(callHelp.stdout.replace(/\s+/g, " ")).toContain(
      "default: none, so a server asking for roots gets an empty list",
    );
    expect(callHelp.stdout.replace(/\s+/g, " ")).toContain("required with --yes");
    const fromEnv = await runCli(["--json", "tools"], { home, env: { ROUNDTRIP_SERVER: stack.url } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const badArgs = await cli(["call", "create_service", "oops"]);
    expect(badArgs.code).toBe(2);
  });

  it("without credentials the server's refusal says to log in (exit 3)", async () => {
    const other = await newHome();
    const run = await runCli(["--server", stack.url, "--json", "tools"], { home: other });
    expect(run.code).toBe(3);
    expect(run.json()).toMatchObject({ status: "error", exitCode: 3 });
    expect(run.stderr).toContain("roundtrip login");
  });
});

describe("a server's refusal of the arguments", () => {
  // A Roundtrip server answers a schema refusal with an error result, and the CLI's own check stops
  // most bad values before sending; a 2026-era server with rules only it knows still answers -32602.
  it("a -32602 from a 2026-era server for arguments the advertised schema accepts exits 2", async () => {
    const server = await startScriptedMcp({
      serverInfo: { name: "sizes", version: "1" },
      tools: [
        {
          name: "resize",
          inputSchema: { type: "object", properties: { size: { type: "string" } }, required: ["size"] },
        },
      ],
      answer: () => ({ error: { code: -32602, message: "Invalid params: size must be one of s, m, l" } }),
    });
    try {
      const run = await runCli(["--server", server.url, "--json", "call", "resize", "size=xl"], {
        home: await newHome(),
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.json()).toMatchObject({ status: "error", exitCode: 2 });
      expect(run.stderr).toContain(
        "the server refused the arguments as invalid: Invalid params: size must be one of s, m, l",
      );
      // The call did go out: this refusal is the server's, not the CLI's own check.
      expect(server.calls.map((call) => call.params.arguments)).toEqual([{ size: "xl" }]);
    } finally {
      await server.close();
    }
  });
});
