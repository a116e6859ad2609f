import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, runCli } from "./support/run-cli.js";
import { type Stack, startStack } from "./support/stack.js";

/**
 * The CLI signs in with the identity assertion grant from a hand-written profile in logins.json: alice's
 * ID token from the local authorization server (as her IdP) in a file, exchanged for an ID-JAG and
 * presented with the JWT bearer grant, all by the real local authorization server.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

async function homeWith(profile: Record<string, unknown>): Promise<string> {
  const home = await newHome();
  await writeFile(join(home, "logins.json"), JSON.stringify({ [stack.url]: profile }), { mode: 0o600 });
  return home;
}

describe("CLI settings: the grants without a browser", () => {
  it("lists tools with a token from the identity assertion grant, the ID token read from a file", async () => {
    const { idToken } = await stack.as.authorizationCodeToken("alice", "openid mcp:tools");
    const home = await newHome();
    const idTokenFile = join(home, "id-token");
    await writeFile(idTokenFile, `${idToken}\n`, { mode: 0o600 });
    await writeFile(
      join(home, "logins.json"),
      JSON.stringify({
        [stack.url]: {
          grant: "identity_assertion",
          clientId: "mcp-enterprise",
          clientSecret: "mcp-enterprise-secret",
          issuer: stack.as.issuer,
          scope: "mcp:tools",
          identityAssertion: { idpIssuer: stack.as.issuer, idpClientId: "mcp-interactive", idTokenFile },
        },
      }),
      { mode: 0o600 },
    );
    const tools = await runCli(["--server", stack.url, "--json", "tools"], { home });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain("deploy");
  });

  it("refuses a workload profile without its token file, naming the field to add", async () => {
    const home = await homeWith({
      grant: "workload_identity",
      clientId: "mcp-workload",
      issuer: stack.as.issuer,
    });
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('without "workloadTokenFile"');
  });

  it("refuses a workload profile that does not name its authorization server: the token goes nowhere else", async () => {
    const home = await homeWith({
      grant: "workload_identity",
      clientId: "mcp-workload",
      workloadTokenFile: "/x",
    });
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('without "issuer"');
  });
});
