import { DevelopmentBrowser, firstPostForm, type LocalAuthServer } from "@roundtrip/local-auth";
import { TASKS_EXTENSION } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer, viaInstance } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let aliceToken: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as, { DEPLOY_ROLLOUT_MS: "900" }));
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

describe("deploy as a task", () => {
  it("declares optional task support, and deploys once through a task: confirmation, approval page, rollout", async () => {
    let opened: (url: string) => void = () => {};
    const firstUrl = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const client = mcpClient(app.url, aliceToken, watch, {
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      onElicit: (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        opened(params.url);
        return { action: "accept" };
      },
    });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === "deploy")?.execution).toEqual({ taskSupport: "optional" });
    const done = client.callTool("deploy", { service: "api", env: "staging" });
    const path = new URL(await firstUrl).pathname;
    const release = path.split("/").pop() ?? "";
    const alice = new DevelopmentBrowser("alice");
    const page = await alice.visit(`${app.origin}${path}/sign-in`, app.origin, viaInstance(app.origin));
    const csrf = firstPostForm(page.html)?.fields.csrf ?? "";
    const approved = await alice.fetch(`${app.origin}${path}/approve`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }),
    });
    expect(approved.status).toBe(200);
    const result = await done;
    expect(result.content).toEqual([{ type: "text", text: `Deployed ${release} of api to staging` }]);
    const deployed = app.logs.lines().filter((line) => line.msg === "release deployed");
    expect(deployed.map((line) => line.release)).toEqual([release]);
  }, 120_000);
});
