import type { LocalAuthServer } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import {
  Client,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  StreamableHTTPClientTransport,
} from "./support/official-v1-client.js";
import { initializeMessage, postLegacy } from "./support/raw-legacy.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * A 2025-11-25 host (the official SDK v1 client) on the reference server, through Fastify, OAuth and
 * the sealed keyring exactly as deployed: one session on one instance runs every example tool,
 * prompt and resource template, each question reaching it as a server-to-client request.
 */

let as: LocalAuthServer;
let app: RunningServer;
let aliceToken: string;
let toolsOnlyToken: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as, { CORS_ORIGINS: "https://app.roundtrip.test" }));
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
  ({ accessToken: toolsOnlyToken } = await as.authorizationCodeToken("alice", "mcp:tools"));
  watch.remember("access token", aliceToken);
  watch.remember("access token", toolsOnlyToken);
  watch.remember("sampled completion", COMPLETION);
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

interface Asked {
  kind: "form" | "url" | "sampling" | "roots";
  message: string;
}

const ROOT = { uri: "file:///home/alice/ledger", name: "ledger" };
const COMPLETION = "All green across the fleet.";

/** The first choice of every enum, true for every boolean: the answers the expectations below use. */
function formAnswer(schema: { properties?: Record<string, { type?: string; enum?: unknown[] }> }) {
  const content: Record<string, unknown> = {};
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    if (property.enum) content[field] = property.enum[0];
    else if (property.type === "boolean") content[field] = true;
  }
  return content;
}

/** Records the approval of `release` for whoever asked for it, as the approval page would. */
async function approveAsRequester(release: string): Promise<void> {
  const record = await app.server.approvals.status(release);
  if (!record) throw new Error(`no approval requested for ${release}`);
  expect(await app.server.approvals.approve(release, record.requester)).toBe("approved");
}

async function legacyClient(token: string, asked: Asked[] = []) {
  const client = new Client(
    { name: "legacy-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params;
    if (params.mode === "url") {
      asked.push({ kind: "url", message: params.url });
      // As if alice approved on the page before telling the host she is done.
      await approveAsRequester(new URL(params.url).pathname.split("/").pop() ?? "");
      return { action: "accept" };
    }
    asked.push({ kind: "form", message: params.message });
    return { action: "accept", content: formAnswer(params.requestedSchema) as Record<string, string> };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push({ kind: "sampling", message: "" });
    return { role: "assistant", content: { type: "text", text: COMPLETION }, model: "host-model" };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.push({ kind: "roots", message: "" });
    return { roots: [ROOT] };
  });
  const transport = new StreamableHTTPClientTransport(new URL(app.url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, origin: "https://app.roundtrip.test" } },
  });
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: object) {
  const { content, messages, contents } = result as {
    content?: unknown;
    messages?: { content: unknown }[];
    contents?: unknown[];
  };
  const block = Array.isArray(content) ? content[0] : (messages?.[0]?.content ?? contents?.[0]);
  return (block as { text?: string } | undefined)?.text;
}

describe("a 2025-11-25 client (official SDK v1) on the reference server", () => {
  it("is served every example on one session, with its bearer token", async () => {
    const asked: Asked[] = [];
    const { client, transport } = await legacyClient(aliceToken, asked);
    expect(transport.sessionId).toMatch(/.+/);
    expect(client.getServerVersion()?.name).toBe(app.server.config.serverName);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "create_service",
      "deploy",
      "list_workspace",
      "summarize",
    ]);

    expect(textOf(await client.callTool({ name: "create_service", arguments: { name: "ledger" } }))).toBe(
      "Created service ledger on node20, size small",
    );
    expect(asked.splice(0)).toEqual([
      { kind: "form", message: "Which runtime should ledger use?" },
      { kind: "form", message: "Which size should ledger run on?" },
      { kind: "form", message: "Create ledger on node20, size small?" },
    ]);

    const summary = await client.callTool({ name: "summarize", arguments: { text: "Every check passed." } });
    expect(textOf(summary)).toBe(`Summary (by host-model): ${COMPLETION}`);
    expect(textOf(await client.callTool({ name: "list_workspace", arguments: {} }))).toBe(
      `The client shares 1 root(s):\nledger: ${ROOT.uri}`,
    );
    expect(asked.splice(0).map((entry) => entry.kind)).toEqual(["sampling", "roots"]);

    const prompt = await client.getPrompt({ name: "incident_brief", arguments: { service: "api" } });
    expect(textOf(prompt)).toMatch(/^Write a sev1 incident brief for api: /);
    const status = await client.readResource({ uri: "status://api" });
    expect(textOf(status)).toBe("api: operational over the last 1h, no incidents recorded");
    expect(asked.splice(0)).toEqual([
      { kind: "form", message: "How severe is the incident on api?" },
      { kind: "form", message: "Status of api over which window?" },
    ]);

    const deployed = await client.callTool({ name: "deploy", arguments: { service: "api", env: "staging" } });
    const release = /rel-[0-9a-f]{32}/.exec(asked[0]?.message ?? "")?.[0];
    expect(textOf(deployed)).toBe(`Deployed ${release} of api to staging`);
    expect(asked.splice(0)).toEqual([
      { kind: "form", message: `Deploy api (release ${release}) to staging?` },
      { kind: "url", message: `https://mcp.roundtrip.test/approvals/${release}` },
    ]);

    await transport.terminateSession();
    expect(watch.leaksIn(app.logs.text())).toEqual([]);
  });

  it("needs the deploy scope for deploy, though the call names its tool only in the body", async () => {
    const { client } = await legacyClient(toolsOnlyToken);
    await expect(
      client.callTool({ name: "deploy", arguments: { service: "api", env: "staging" } }),
    ).rejects.toThrow(/lacks .mcp:deploy./);
    // The same session still serves what the token allows.
    expect(textOf(await client.callTool({ name: "list_workspace", arguments: {} }))).toMatch(/^The client/);
  });

  it("lets a browser host read the session id and end the session (CORS)", async () => {
    const preflight = await fetch(app.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.roundtrip.test",
        "access-control-request-method": "DELETE",
        "access-control-request-headers": "authorization, mcp-session-id, mcp-protocol-version",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("DELETE");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-session-id");

    const initialize = await postLegacy(
      app.url,
      { origin: "https://app.roundtrip.test", authorization: `Bearer ${aliceToken}` },
      initializeMessage("browser-host"),
    );
    await initialize.body?.cancel();
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get("mcp-session-id")).toMatch(/.+/);
    expect(initialize.headers.get("access-control-expose-headers")?.toLowerCase()).toContain(
      "mcp-session-id",
    );
  });
});
