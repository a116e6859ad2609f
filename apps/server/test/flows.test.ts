import type { LocalAuthServer } from "@roundtrip/local-auth";
import type { ElicitParams } from "@roundtrip/sdk";
import type { InputRequestContext } from "@roundtrip/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let aliceToken: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

interface Asked {
  round: number;
  key: string;
  mode: string;
  message: string;
}

/** An elicitation callback that answers from `answers` (by key) and records what it was asked. */
function answering(answers: Record<string, Record<string, string | boolean>>, asked: Asked[]) {
  return (params: ElicitParams, context: InputRequestContext) => {
    asked.push({
      round: context.round,
      key: context.key,
      mode: params.mode ?? "form",
      message: params.message,
    });
    if (params.mode === "url") return { action: "accept" as const };
    const content = answers[context.key];
    if (content === undefined) throw new Error(`unexpected question ${context.key}`);
    return { action: "accept" as const, content };
  };
}

/** Records the approval of `release` for whoever asked for it, as the approval page would. */
async function approveAsRequester(release: string): Promise<void> {
  const record = await app.server.approvals.status(release);
  if (!record) throw new Error(`no approval requested for ${release}`);
  expect(await app.server.approvals.approve(release, record.requester)).toBe("approved");
}

function textOf(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("");
}

describe("the example capabilities, end to end with the SDK client", () => {
  it("create_service asks runtime and size together, then a confirmation quoting both", async () => {
    const asked: Asked[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onElicit: answering(
        { runtime: { runtime: "node22" }, tier: { tier: "medium" }, confirmation: { confirm: true } },
        asked,
      ),
    });

    const result = await client.callTool("create_service", { name: "billing" });

    expect(textOf(result)).toBe("Created service billing on node22, size medium");
    expect(asked.map(({ round, key }) => [round, key]).sort()).toEqual([
      [1, "runtime"],
      [1, "tier"],
      [2, "confirmation"],
    ]);
    expect(asked.find((q) => q.key === "confirmation")?.message).toBe(
      "Create billing on node22, size medium?",
    );
  });

  it("summarize samples the client's model once and reports its answer", async () => {
    const summary = "SUMMARY-7c1e: the quarter closed above plan";
    watch.remember("sampled completion", summary);
    const prompts: string[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onSample: (params) => {
        const first = params.messages[0]?.content;
        prompts.push(first && !Array.isArray(first) && first.type === "text" ? String(first.text) : "");
        return { role: "assistant", content: { type: "text", text: summary }, model: "test-model-1" };
      },
    });

    const result = await client.callTool("summarize", { text: "Revenue grew 12% while costs stayed flat." });

    expect(textOf(result)).toBe(`Summary (by test-model-1): ${summary}`);
    expect(prompts).toEqual(["Summarize:\n\nRevenue grew 12% while costs stayed flat."]);
  });

  it("list_workspace lists the roots the client shares", async () => {
    const root = "file:///home/alice/projects/ledger-5d2a";
    watch.remember("root uri", root);
    const client = mcpClient(app.url, aliceToken, watch, {
      onListRoots: () => ({ roots: [{ uri: root, name: "ledger" }] }),
    });

    const result = await client.callTool("list_workspace", {});

    expect(textOf(result)).toBe(`The client shares 1 root(s):\nledger: ${root}`);
  });

  it("deploy confirms by form, asks approval by URL, then deploys the release once it is approved", async () => {
    const asked: Asked[] = [];
    const urls: string[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onElicit: async (params, context) => {
        if (params.mode === "url") {
          urls.push(params.url);
          // As if alice approved on the page (test/approval-flow.test.ts drives the page itself).
          await approveAsRequester(params.url.split("/").pop() ?? "");
        }
        return answering({ confirm: { confirm: true } }, asked)(params, context);
      },
    });

    const result = await client.callTool("deploy", { service: "api", env: "production" });

    const release = /rel-[0-9a-f]{32}/.exec(asked[0]?.message ?? "")?.[0];
    expect(release).toBeDefined();
    expect(asked.map(({ round, key, mode }) => [round, key, mode])).toEqual([
      [1, "confirm", "form"],
      [2, "approval", "url"],
    ]);
    expect(urls).toEqual([`https://mcp.roundtrip.test/approvals/${release}`]);
    expect(textOf(result)).toBe(`Deployed ${release} of api to production`);
  });

  it("deploy stops when the confirmation is declined, without asking for approval", async () => {
    const modes: string[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onElicit: (params) => {
        modes.push(params.mode ?? "form");
        return { action: "decline" };
      },
    });

    const result = await client.callTool("deploy", { service: "api", env: "staging" });

    expect(textOf(result)).toMatch(/^Deployment of rel-[0-9a-f]{32} declined$/);
    expect(modes).toEqual(["form"]);
  });

  it("deploy does not take the URL's accept as the approval: it keeps waiting, then asks again", async () => {
    const modes: string[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      inputRequiredMaxRounds: 20,
      onElicit: (params) => {
        modes.push(params.mode ?? "form");
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        return { action: modes.length < 3 ? "accept" : "cancel" };
      },
    });

    const result = await client.callTool("deploy", { service: "api", env: "production" });

    expect(modes).toEqual(["form", "url", "url"]);
    expect(textOf(result)).toMatch(
      /^Release rel-[0-9a-f]{32} was not approved \(cancelled\); nothing was deployed$/,
    );
  });

  it("the approval page shows only releases awaiting approval", async () => {
    expect((await fetch(`${app.origin}/approvals/rel-0123456789abcdef0123456789abcdef`)).status).toBe(404);
    expect((await fetch(`${app.origin}/approvals/..%2Fetc`)).status).toBe(404);
  });

  it("the incident_brief prompt asks for the severity before rendering", async () => {
    const asked: Asked[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onElicit: answering({ severity: { severity: "sev2" } }, asked),
    });

    const prompt = await client.getPrompt("incident_brief", { service: "payments" });

    expect(asked.map((q) => q.message)).toEqual(["How severe is the incident on payments?"]);
    expect(prompt.messages[0]?.content).toEqual({
      type: "text",
      text: "Write a sev2 incident brief for payments: impact, timeline, current status and next update time, in under 200 words.",
    });
  });

  it("the status://{service} resource template asks for the window before reading", async () => {
    const asked: Asked[] = [];
    const client = mcpClient(app.url, aliceToken, watch, {
      onElicit: answering({ window: { window: "24h" } }, asked),
    });

    const resource = await client.readResource("status://checkout");

    expect(asked.map((q) => q.message)).toEqual(["Status of checkout over which window?"]);
    expect(resource.contents).toEqual([
      {
        uri: "status://checkout",
        mimeType: "text/plain",
        text: "checkout: operational over the last 24h, no incidents recorded",
      },
    ]);
  });

  it("logged every request, and no token, requestState or answer", () => {
    const text = app.logs.text();
    expect(app.logs.lines().filter((line) => line.msg === "request completed").length).toBeGreaterThan(10);
    expect(watch.size).toBeGreaterThan(5);
    expect(watch.leaksIn(text)).toEqual([]);
    expect(text).not.toMatch(/"step":"(confirm|approve|wait)"/);
  });
});
