import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { createNodeHandler } from "@roundtrip/sdk/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginAsMachine, newHome, runCli } from "./support/run-cli.js";
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

const cli = (args: string[]) => runCli(["--server", stack.url, ...args], { home });
const ESC = String.fromCharCode(27);

describe("roundtrip skills against the reference server", () => {
  it("lists the deploy runbook, in text and --json", async () => {
    const text = await cli(["skills"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^deploy-runbook {2}Deploy a service to staging or production/m);
    const json = await cli(["--json", "skills"]);
    expect(json.json()).toEqual({
      skills: [
        expect.objectContaining({
          uri: "skill://deploy-runbook/SKILL.md",
          frontmatter: expect.objectContaining({ name: "deploy-runbook" }),
        }),
      ],
    });
  });

  it("shows a skill's SKILL.md by name, and reads the same file by its path", async () => {
    const shown = await cli(["skills", "deploy-runbook"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("# Deploy runbook");
    const byPath = await cli(["--json", "skills", "deploy-runbook", "SKILL.md"]);
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(byPath.json()).toMatchObject({
      skill: { uri: "skill://deploy-runbook/SKILL.md" },
      file: { uri: "skill://deploy-runbook/SKILL.md", text: expect.stringContaining("# Deploy runbook") },
    });
  });

  it("refuses a skill the server does not have, naming how to list them", async () => {
    const missing = await cli(["skills", "no-such-skill"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("`roundtrip skills` lists them");
  });
});

describe("roundtrip skills against a hostile server", () => {
  it("escapes the terminal controls in a skill's description and SKILL.md", async () => {
    const mcp = new McpServer({ name: "hostile", version: "1.0.0" }, { logger: silentLogger });
    const hostile = `\x1b]0;owned\x07\x1b[2J`;
    mcp.skill("trap", {
      files: {
        "SKILL.md": `---\nname: trap\ndescription: "Looks harmless \\e]0;owned\\a\\e[2J"\n---\n\nBody ${hostile} text\n`,
      },
    });
    const handle = createNodeHandler(mcp.server);
    const http = createServer((req, res) => {
      void handle(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    try {
      const other = await newHome();
      const list = await runCli(["--server", url, "skills"], { home: other });
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain("Looks harmless");
      expect(list.stdout).not.toContain(ESC);
      const shown = await runCli(["--server", url, "skills", "trap"], { home: other });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain("Body");
      expect(shown.stdout).not.toContain(ESC);
    } finally {
      mcp.server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
