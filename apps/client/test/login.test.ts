import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { DevelopmentBrowser } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, runCli } from "./support/run-cli.js";
import { spawnCli } from "./support/spawn-cli.js";
import { type Stack, startStack } from "./support/stack.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

describe("login and logout", () => {
  it("authorization code: the printed URL, walked in a browser, signs the user in through the loopback callback", async () => {
    const home = await newHome();
    const login = spawnCli(
      ["--server", stack.url, "--json", "login", "--client-id", "mcp-interactive", "--no-browser"],
      { home },
    );
    const [, start] = await login.waitForStderr(/Open: (http:\/\/127\.0\.0\.1:\d+\/login)\n/);
    const [, leadsTo] = await login.waitForStderr(/it leads to (\S+)\)/);
    const authorization = new URL(leadsTo!);
    expect(authorization.origin).toBe(stack.as.issuer);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("resource")).toBe(stack.url);
    const callback = new URL(authorization.searchParams.get("redirect_uri")!);
    expect(callback.pathname).toBe("/callback");
    expect(callback.origin).toBe(new URL(start!).origin);

    // A callback from a browser that did not start the sign-in here (no state cookie) is turned away.
    const forged = new URL(callback);
    forged.search = new URLSearchParams({
      code: "stolen",
      state: authorization.searchParams.get("state")!,
      iss: stack.as.issuer,
    }).toString();
    expect((await fetch(forged)).status).toBe(400);

    // /login redirects to the authorization server; the walk ends on the callback's page, back on loopback.
    const page = await new DevelopmentBrowser("alice").visit(start!, callback);
    expect(page.url.pathname).toBe("/callback");
    expect(page.status).toBe(200);
    expect(page.html).toContain("Signed in");
    expect(await login.exited, login.stderr()).toBe(0);
    expect(JSON.parse(login.stdout())).toMatchObject({
      status: "logged-in",
      grant: "authorization_code",
      clientId: "mcp-interactive",
      issuer: stack.as.issuer,
    });

    // The tokens are cached per issuer in a private file and used by later commands.
    const tokenFiles = await readdir(join(home, "tokens"));
    expect(tokenFiles).toHaveLength(1);
    const tokenFile = join(home, "tokens", tokenFiles[0]!);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const cached = JSON.parse(await readFile(tokenFile, "utf8")) as {
      issuer: string;
      tokens: Record<string, { accessToken: string }>;
    };
    expect(cached.issuer).toBe(stack.as.issuer);
    const accessToken = Object.values(cached.tokens)[0]!.accessToken;
    expect(login.stdout() + login.stderr()).not.toContain(accessToken);

    const call = await runCli(["--server", stack.url, "--json", "call", "list_workspace"], { home });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).not.toContain(accessToken);

    const logout = await runCli(["--server", stack.url, "--json", "logout"], { home });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.json()).toMatchObject({ status: "logged-out", servers: [stack.url], tokensRemoved: 1 });
    expect(await readdir(join(home, "tokens"))).toHaveLength(0);
    const after = await runCli(["--server", stack.url, "tools"], { home });
    expect(after.code).toBe(3);
  });

  it("client credentials: wrong secret fails with exit 3 and keeps no login", async () => {
    const home = await newHome();
    const wrong = await runCli(
      [
        "--server",
        stack.url,
        "--json",
        "login",
        "--client-id",
        "mcp-machine",
        "--client-secret",
        "not-the-secret",
      ],
      { home },
    );
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).not.toContain("not-the-secret");
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code).toBe(3);
    const secretless = await runCli(["--server", stack.url, "login", "--client-secret", "x"], { home });
    expect(secretless.code).toBe(2);
  });

  it("ROUNDTRIP_TOKEN is sent as a bearer token without a login", async () => {
    const home = await newHome();
    const token = await stack.as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const run = await runCli(["--server", stack.url, "--json", "tools"], {
      home,
      env: { ROUNDTRIP_TOKEN: token },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(token);
    const logoutAll = await runCli(["--json", "logout", "--all"], { home });
    expect(logoutAll.json()).toMatchObject({ status: "logged-out", tokensRemoved: 0 });
  });
});
