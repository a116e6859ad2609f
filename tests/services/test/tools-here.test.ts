import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureTool, type ToolName } from "../src/index.js";

const run = promisify(execFile);

/** How each tool says its version; what it prints only proves it runs. */
const VERSION_ARGS: Record<ToolName, readonly string[]> = {
  moto_server: ["--help"],
  "cfn-lint": ["--version"],
  nginx: ["-v"],
  "redis-server": ["--version"],
  "valkey-server": ["--version"],
  prometheus: ["--version"],
  openssl: ["version"],
  strace: ["-V"],
  chromium: ["--version"],
  kubectl: ["version", "--client"],
};

// The suites' own tools, found or installed as the suites themselves get them: a machine that can run
// this suite can run the others, and one that cannot learns here, in one line each, what to install.
describe.each(Object.keys(VERSION_ARGS) as ToolName[])("%s", (name) => {
  it("is here, or installs, and runs", async () => {
    const binary = await ensureTool(name);
    const { stdout, stderr } = await run(binary, [...VERSION_ARGS[name]], { timeout: 60_000 });
    expect(`${stdout}${stderr}`.trim()).not.toBe("");
  });
});
