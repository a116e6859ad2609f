import { Client, type ClientOptions, type ElicitParams } from "@roundtrip/sdk";
import { LATEST_LEGACY_PROTOCOL_VERSION } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elicitAnswer, expectedText, PROMPT, sampleAnswer, TOOL } from "../src/ask-flow.js";
import {
  ADD,
  APPROVAL_MESSAGE,
  APPROVAL_URL,
  APPROVE,
  approvalText,
  confirmQuestion,
  expectedRegisterText,
  expectedSummaryText,
  firstMessageText,
  formAnswer,
  nameQuestion,
  REGISTER,
  ROOTS,
  rootsText,
  SCENARIO_TOOLS,
  SUMMARIZE,
  WORKSPACE,
} from "../src/bridge-scenario.js";
import {
  type OfficialLegacyServer,
  startOfficialV1Server,
  startOfficialV2Server,
} from "../src/official-legacy-servers.js";

/**
 * Roundtrip's Client with its default `auto` negotiation against the official SDKs' servers as
 * 2025-era deployments run them (sessionful Streamable HTTP, v1 1.32.2 and v2 2.4): the probe finds
 * no 2026-07-28 server, the client opens a session with `initialize`, and the servers' tools ask with
 * real server-to-client requests that the client's callbacks answer.
 */

const servers: Record<string, OfficialLegacyServer> = {};
const clients: Client[] = [];
beforeAll(async () => {
  servers.v1 = await startOfficialV1Server();
  servers.v2 = await startOfficialV2Server();
});
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const onElicit = (params: ElicitParams) =>
  params.mode === "url"
    ? { action: "accept" as const }
    : { action: "accept" as const, content: formAnswer(params.message, params.requestedSchema) };
const callbacks: ClientOptions = {
  onElicit,
  onSample: (params) => ({
    role: "assistant",
    content: { type: "text", text: sampleAnswer(firstMessageText(params.messages)) },
    model: "roundtrip-interop",
  }),
  onListRoots: () => ({ roots: ROOTS.map((root) => ({ ...root })) }),
};

function textOf(result: { content?: unknown[]; messages?: { content: unknown }[]; contents?: unknown[] }) {
  const block = result.content?.[0] ?? result.messages?.[0]?.content ?? result.contents?.[0];
  return (block as { text?: string } | undefined)?.text;
}

describe.each([
  { sdk: "v1", serverName: "official-v1-bridge" },
  { sdk: "v2", serverName: "official-v2-bridge" },
])("Roundtrip client → official $sdk server (sessionful, 2025-11-25)", ({ sdk, serverName }) => {
  function client(options: ClientOptions = callbacks): Client {
    const server = servers[sdk];
    if (!server) throw new Error(`no ${sdk} server`);
    const made = new Client(server.url, options);
    clients.push(made);
    return made;
  }

  it("falls back from server/discover to initialize and runs the session at 2025-11-25", async () => {
    const roundtrip = client();
    await roundtrip.connect();
    expect(roundtrip.protocolVersion).toBe(LATEST_LEGACY_PROTOCOL_VERSION);
    expect(roundtrip.serverInfo?.name).toBe(serverName);
    expect(servers[sdk]?.sessions()).toBeGreaterThan(0);
  });

  it("lists the tools", async () => {
    const { tools } = await client().listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(SCENARIO_TOOLS);
  });

  it("calls a one-round tool", async () => {
    expect(textOf(await client().callTool(ADD, { a: 2, b: 3 }))).toBe("5");
  });

  it("answers two elicitations the server pushes in turn", async () => {
    const asked: string[] = [];
    const roundtrip = client({
      ...callbacks,
      onElicit: (params) => {
        asked.push(params.message);
        return onElicit(params);
      },
    });
    expect(textOf(await roundtrip.callTool(REGISTER, { user: "ada" }))).toBe(expectedRegisterText("ada"));
    expect(asked).toEqual([nameQuestion("ada"), confirmQuestion(elicitAnswer(nameQuestion("ada")))]);
  });

  it("answers a URL-mode elicitation the server pushes", async () => {
    const seen: ElicitParams[] = [];
    const roundtrip = client({
      ...callbacks,
      onElicit: (params) => {
        seen.push(params);
        return onElicit(params);
      },
    });
    expect(textOf(await roundtrip.callTool(APPROVE, {}))).toBe(approvalText("accept"));
    expect(seen).toEqual([
      expect.objectContaining({ mode: "url", message: APPROVAL_MESSAGE, url: APPROVAL_URL }),
    ]);
  });

  it("answers the server's sampling request", async () => {
    const result = await client().callTool(SUMMARIZE, { text: "the release notes" });
    expect(textOf(result)).toBe(expectedSummaryText("the release notes"));
  });

  it("answers the server's roots/list", async () => {
    expect(textOf(await client().callTool(WORKSPACE, {}))).toBe(rootsText(ROOTS));
  });

  it("answers a tool that asks a form, then sampling", async () => {
    expect(textOf(await client().callTool(TOOL, { rounds: 3 }))).toBe(expectedText(3));
  });

  it("answers a prompt and a resource template that ask", async () => {
    const roundtrip = client();
    expect(textOf(await roundtrip.getPrompt(PROMPT, { rounds: "3" }))).toBe(expectedText(3));
    expect(textOf(await roundtrip.readResource("ask://3"))).toBe(expectedText(3));
  });

  it("cancels the call on the server when the caller aborts while onElicit is pending", async () => {
    const call = new AbortController();
    let questionSignal: AbortSignal | undefined;
    const roundtrip = client({
      ...callbacks,
      onElicit: (_params, context) => {
        questionSignal = context.signal;
        call.abort(new Error("the user closed the dialog"));
        return new Promise(() => undefined);
      },
    });
    const user = `cancelled-${sdk}`;
    const outcome = await roundtrip.callTool(REGISTER, { user }, { signal: call.signal }).then(
      () => "resolved",
      (error: Error) => error.message,
    );
    expect(outcome).toBe("the user closed the dialog");
    // Closing the call's stream cancels nothing on a 2025-era session: only notifications/cancelled
    // aborts the server's signal for the call. The pending callback is told to stop as well.
    await expect.poll(() => servers[sdk]?.cancelled).toContain(user);
    await expect.poll(() => questionSignal?.aborted).toBe(true);
    // The session still serves.
    expect(textOf(await roundtrip.callTool(ADD, { a: 1, b: 1 }))).toBe("2");
  });

  it("without onElicit declares no elicitation, and the server refuses to ask", async () => {
    const { onElicit: _omitted, ...rest } = callbacks;
    const roundtrip = client(rest);
    const outcome = await roundtrip.callTool(REGISTER, { user: "ada" }).then(
      (result) => ({ refused: result.isError === true, text: textOf(result) ?? "" }),
      (error: Error) => ({ refused: true, text: error.message }),
    );
    expect(outcome.refused).toBe(true);
    expect(outcome.text.toLowerCase()).toContain("elicitation");
    // What it did declare still works on the same kind of session.
    expect(textOf(await roundtrip.callTool(WORKSPACE, {}))).toBe(rootsText(ROOTS));
  });
});
