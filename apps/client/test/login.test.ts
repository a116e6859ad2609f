import { readdir, readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DevelopmentBrowser } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ptyCli } from "./support/pty-cli.js";
import { loginAsMachine, newHome, runCli } from "./support/run-cli.js";
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
      subject: "alice",
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
      env: { ROUNDTRIP_TOKEN: token, ROUNDTRIP_TOKEN_SERVER: stack.url },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(token);
    const logoutAll = await runCli(["--json", "logout", "--all"], { home });
    expect(logoutAll.json()).toMatchObject({ status: "logged-out", tokensRemoved: 0 });
  });

  it("ROUNDTRIP_TOKEN is only sent to the server it is bound to, and never over plain http off loopback", async () => {
    const home = await newHome();
    const token = "ci-token-for-the-stack";
    const seen: (string | undefined)[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { "www-authenticate": "Bearer" }).end();
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`;
    try {
      const elsewhere = await runCli(["--server", otherUrl, "tools"], {
        home,
        env: { ROUNDTRIP_TOKEN: token, ROUNDTRIP_TOKEN_SERVER: stack.url },
      });
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toContain(
        `ROUNDTRIP_TOKEN is for ${stack.url}, so it is not sent to ${otherUrl}`,
      );
      // ROUNDTRIP_SERVER binds it too, so --server cannot redirect it.
      const redirected = await runCli(["--server", otherUrl, "tools"], {
        home,
        env: { ROUNDTRIP_TOKEN: token, ROUNDTRIP_SERVER: stack.url },
      });
      expect(redirected.code).toBe(2);
      const unbound = await runCli(["--server", otherUrl, "tools"], {
        home,
        env: { ROUNDTRIP_TOKEN: token },
      });
      expect(unbound.code).toBe(2);
      expect(unbound.stderr).toContain(`set ROUNDTRIP_TOKEN_SERVER=${otherUrl}`);
      expect(seen).toEqual([]);
    } finally {
      other.close();
    }
    const plain = "http://mcp.example.invalid/mcp";
    const overHttp = await runCli(["--server", plain, "tools"], {
      home,
      env: { ROUNDTRIP_TOKEN: token, ROUNDTRIP_TOKEN_SERVER: plain },
    });
    expect(overHttp.code).toBe(2);
    expect(overHttp.stderr).toContain("not sent over plain http to mcp.example.invalid");
    expect(overHttp.stdout + overHttp.stderr).not.toContain(token);
  });

  it("a refused ROUNDTRIP_TOKEN says it was refused and by what error (exit 3)", async () => {
    const home = await newHome();
    const run = await runCli(["--server", stack.url, "tools"], {
      home,
      env: { ROUNDTRIP_TOKEN: "not-a-real-token", ROUNDTRIP_TOKEN_SERVER: stack.url },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${stack.url} refused ROUNDTRIP_TOKEN (HTTP 401, invalid_token`);
    expect(run.stderr).toContain("unset ROUNDTRIP_TOKEN");
    expect(run.stderr).not.toMatch(/or set ROUNDTRIP_TOKEN/);
    expect(run.stderr).not.toContain("not-a-real-token");
  });

  it("an interrupted login (Ctrl+C) keeps the working login: profile and tokens are replaced only on success", async () => {
    const home = await newHome();
    expect((await loginAsMachine(stack.url, home)).code).toBe(0);
    const before = await loginFiles(home);
    const login = ptyCli(["--server", stack.url, "login", "--client-id", "mcp-interactive", "--no-browser"], {
      home,
    });
    await login.waitFor("Waiting for the sign-in to finish in the browser");
    login.type("\x03");
    expect(await login.exited, login.screen()).toBe(130);
    expect(login.screen()).toContain("the earlier login to");
    expect(await loginFiles(home)).toEqual(before);
    const tools = await runCli(["--server", stack.url, "tools"], { home });
    expect(tools.code, tools.stderr).toBe(0);
  });

  it("without a terminal, a sign-in that needs a browser fails at once naming the alternatives (exit 3)", async () => {
    const home = await newHome();
    const login = await runCli(["--server", stack.url, "login", "--client-id", "mcp-interactive"], { home });
    expect(login.code).toBe(3);
    expect(login.stderr).toContain("needs a person at a browser, and there is no terminal here");
    expect(login.stderr).toContain("roundtrip login --client-id <id> --client-secret <secret>");
    expect(login.stderr).toContain("ROUNDTRIP_TOKEN");
    expect(await readdir(home)).not.toContain("logins.json");
  });

  it("reports the scopes asked for that the authorization server did not grant", async () => {
    const home = await newHome();
    const login = await runCli(
      [
        "--server",
        stack.url,
        "--json",
        "login",
        "--client-id",
        "mcp-machine",
        "--client-secret",
        "mcp-machine-secret",
        "--scope",
        "mcp:tools mcp:unheard-of",
      ],
      { home },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.json()).toMatchObject({
      scope: "mcp:tools",
      scopeRequested: "mcp:tools mcp:unheard-of",
      scopeNotGranted: ["mcp:unheard-of"],
      subject: "mcp-machine",
    });
    expect(login.stderr).toContain("did not grant mcp:unheard-of of the scopes asked for");
  });
});

/** What a login keeps on disk: the profiles and every token file, by name. */
async function loginFiles(home: string): Promise<Record<string, string>> {
  const files: Record<string, string> = { "logins.json": await readFile(join(home, "logins.json"), "utf8") };
  for (const name of await readdir(join(home, "tokens"))) {
    files[name] = await readFile(join(home, "tokens", name), "utf8");
  }
  return files;
}
