import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type RecordingAuthorizationServer,
  startRecordingAuthorizationServer,
} from "./support/recording-authorization-server.js";
import { newHome, runCli } from "./support/run-cli.js";
import { type Stack, startStack } from "./support/stack.js";

const SECRET = "mcp-machine-secret";

let stack: Stack;
let other: RecordingAuthorizationServer;

beforeAll(async () => {
  stack = await startStack();
  other = await startRecordingAuthorizationServer();
});

afterAll(async () => {
  await stack?.close();
  await other?.close();
});

beforeEach(async () => {
  await stack.trust(stack.as.issuer);
  other.requests.length = 0;
});

function machineLogin(home: string, ...extra: string[]) {
  return runCli(
    ["--server", stack.url, "login", "--client-id", "mcp-machine", "--client-secret", SECRET, ...extra],
    { home },
  );
}

/** Nothing that reached the other authorization server carries the secret, in any encoding. */
function expectSecretNeverSent(): void {
  const basic = Buffer.from(`mcp-machine:${SECRET}`).toString("base64");
  expect(other.requests.filter((r) => r.path === "/token" || r.path === "/register")).toEqual([]);
  for (const request of other.requests) {
    expect(request.authorization).toBeUndefined();
    expect(request.body).not.toContain(SECRET);
    expect(request.body).not.toContain(basic);
  }
}

describe("a client secret is bound to its authorization server", () => {
  it("login records the issuer; when the server later names another, the secret is not sent there (exit 3)", async () => {
    const home = await newHome();
    const login = await machineLogin(home);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`names the authorization server ${stack.as.issuer}`);
    const profiles = JSON.parse(await readFile(join(home, "logins.json"), "utf8")) as Record<
      string,
      { issuer?: string }
    >;
    expect(profiles[stack.url]?.issuer).toBe(stack.as.issuer);
    expect((await runCli(["--server", stack.url, "tools"], { home })).code).toBe(0);

    await stack.trust(other.issuer);
    const moved = await runCli(["--server", stack.url, "tools"], { home });
    expect(moved.code, moved.stderr).toBe(3);
    expect(moved.stderr).toContain(other.issuer);
    expect(moved.stderr).toContain(stack.as.issuer);
    expect(moved.stderr).toContain(`roundtrip login --server ${stack.url} --client-id mcp-machine`);
    expect(moved.stderr).not.toContain(SECRET);
    expectSecretNeverSent();
  });

  it("login --issuer refuses a server that names another authorization server, before the secret is sent", async () => {
    await stack.trust(other.issuer);
    const home = await newHome();
    const login = await machineLogin(home, "--issuer", stack.as.issuer);
    expect(login.code, login.stderr).toBe(3);
    expect(login.stderr).toContain(other.issuer);
    expectSecretNeverSent();
    // The refused login left nothing behind.
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code).toBe(3);
    expect(tools.stderr).toContain("wants credentials");
  });

  it("a saved login whose secret has no recorded issuer is refused with what to do, and sends nothing", async () => {
    const home = await newHome();
    await writeFile(
      join(home, "logins.json"),
      JSON.stringify({
        [stack.url]: { grant: "client_credentials", clientId: "mcp-machine", clientSecret: SECRET },
      }),
    );
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code).toBe(3);
    expect(tools.stderr).toContain(`does not record which authorization server its client secret belongs to`);
    expect(tools.stderr).toContain(`roundtrip login --server ${stack.url} --client-id mcp-machine`);
    const login = await machineLogin(home, "--issuer", stack.as.issuer);
    expect(login.code, login.stderr).toBe(0);
  });
});
