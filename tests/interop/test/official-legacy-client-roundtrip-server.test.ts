import { LATEST_LEGACY_PROTOCOL_VERSION } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elicitAnswer, expectedText, PROMPT, TOOL } from "../src/ask-flow.js";
import {
  ADD,
  APPROVAL_MESSAGE,
  APPROVAL_URL,
  APPROVE,
  approvalText,
  confirmQuestion,
  expectedRegisterText,
  expectedSummaryText,
  nameQuestion,
  REGISTER,
  REGISTER_TASK,
  ROOTS,
  rootsText,
  SCENARIO_TOOLS,
  SUMMARIZE,
  WORKSPACE,
} from "../src/bridge-scenario.js";
import {
  type Capability,
  connectV1Http,
  connectV1Stdio,
  connectV2Legacy,
  type ElicitationSeen,
  type LegacyClient,
  type LegacyClientOptions,
} from "../src/official-legacy-clients.js";
import { type ScenarioHttpServer, startScenarioHttpServer } from "../src/roundtrip-mcp-server.js";
import type { Tally } from "../src/tally.js";

/**
 * 2025-era hosts against Roundtrip's McpServer with its defaults: the official v1 client on
 * Streamable HTTP (createNodeHandler on node:http) and on stdio (the server as a child process), and
 * the v2 client in its default legacy negotiation. Each opens a session with `initialize`; every
 * InputRequiredResult reaches it as real server-to-client requests, answered by its own handlers.
 */

let http: ScenarioHttpServer;
const open: LegacyClient[] = [];
beforeAll(async () => {
  http = await startScenarioHttpServer();
});
afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
  await http.close();
});

interface Peer {
  name: string;
  connect(options?: LegacyClientOptions): Promise<{ client: LegacyClient; calls: Tally }>;
}

const PEERS: Peer[] = [
  {
    name: "official v1 client, Streamable HTTP",
    connect: async (options) => ({ client: await connectV1Http(http.url, options), calls: http.calls }),
  },
  {
    name: "official v1 client, stdio",
    connect: async (options) => {
      const client = await connectV1Stdio(options);
      return { client, calls: client.serverCalls };
    },
  },
  {
    name: "official v2 client, legacy negotiation, Streamable HTTP",
    connect: async (options) => ({ client: await connectV2Legacy(http.url, options), calls: http.calls }),
  },
];

function textOf(result: { content?: unknown[]; messages?: { content: unknown }[]; contents?: unknown[] }) {
  const block = result.content?.[0] ?? result.messages?.[0]?.content ?? result.contents?.[0];
  return (block as { text?: string } | undefined)?.text;
}

describe.each(PEERS)("$name → Roundtrip McpServer", (peer) => {
  async function connect(options?: LegacyClientOptions) {
    const connected = await peer.connect(options);
    open.push(connected.client);
    return connected;
  }

  it("opens a session at 2025-11-25 with initialize", async () => {
    const { client } = await connect();
    expect(client.protocolVersion()).toBe(LATEST_LEGACY_PROTOCOL_VERSION);
    expect(client.serverName()).toBe("roundtrip-bridge");
  });

  it("lists the tools", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...SCENARIO_TOOLS, REGISTER_TASK].sort());
  });

  it("calls a tool that runs as a task for tasks clients as one call, its questions asked over the session", async () => {
    const asked: string[] = [];
    const { client, calls } = await connect({
      onElicit: async (seen: ElicitationSeen) => {
        asked.push(seen.message);
        const field = asked.length === 1 ? { name: elicitAnswer(seen.message) } : { confirm: true };
        return { action: "accept", content: field };
      },
    });
    // Listed first: a 2025-era client that saw the tasks extension's "required" would refuse a plain call.
    const { tools } = await client.listTools();
    const listed = tools.find((tool) => tool.name === REGISTER_TASK) as { execution?: unknown } | undefined;
    expect(listed).toBeDefined();
    expect(listed?.execution).toBeUndefined();
    const before = calls.count(REGISTER_TASK);
    const result = await client.callTool(REGISTER_TASK, { user: "ada" });
    expect(textOf(result)).toBe(expectedRegisterText("ada"));
    expect(asked).toEqual([nameQuestion("ada"), confirmQuestion(elicitAnswer(nameQuestion("ada")))]);
    // A stdio server reports its handler runs on stderr, a pipe of its own that can trail the answer.
    await calls.reached(REGISTER_TASK, before + 1);
    expect(calls.count(REGISTER_TASK) - before).toBe(1);
  });

  it("calls a one-round tool", async () => {
    const { client } = await connect();
    const result = await client.callTool(ADD, { a: 2, b: 3 });
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toBe("5");
  });

  it("answers two form elicitations in turn, the second quoting the first answer (resolvers)", async () => {
    const asked: string[] = [];
    const { client } = await connect({
      onElicit: async (seen: ElicitationSeen) => {
        asked.push(seen.message);
        const field = asked.length === 1 ? { name: elicitAnswer(seen.message) } : { confirm: true };
        return { action: "accept", content: field };
      },
    });
    const result = await client.callTool(REGISTER, { user: "ada" });
    expect(textOf(result)).toBe(expectedRegisterText("ada"));
    expect(asked).toEqual([nameQuestion("ada"), confirmQuestion(elicitAnswer(nameQuestion("ada")))]);
  });

  it("asks a URL-mode elicitation, named by the elicitationId 2025-11-25 requires", async () => {
    const seen: ElicitationSeen[] = [];
    const { client } = await connect({
      onElicit: async (elicitation) => {
        seen.push(elicitation);
        return { action: "accept" };
      },
    });
    expect(textOf(await client.callTool(APPROVE, {}))).toBe(approvalText("accept"));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ mode: "url", message: APPROVAL_MESSAGE, url: APPROVAL_URL });
    expect(seen[0]?.elicitationId).toMatch(/^\S+$/);
  });

  it("samples through the bridge", async () => {
    const { client } = await connect();
    const result = await client.callTool(SUMMARIZE, { text: "the release notes" });
    expect(textOf(result)).toBe(expectedSummaryText("the release notes"));
  });

  it("lists the client's roots through the bridge", async () => {
    const { client } = await connect();
    const result = await client.callTool(WORKSPACE, {});
    expect(textOf(result)).toBe(rootsText(ROOTS));
  });

  it("runs a hand-built tool of three legs (a form, then sampling)", async () => {
    const { client } = await connect();
    expect(textOf(await client.callTool(TOOL, { rounds: 3 }))).toBe(expectedText(3));
  });

  it("gets a prompt and reads a resource template that ask", async () => {
    const { client } = await connect();
    expect(textOf(await client.getPrompt(PROMPT, { rounds: "3" }))).toBe(expectedText(3));
    const resource = await client.readResource("ask://3");
    expect(resource.contents[0]?.uri).toBe("ask://3");
    expect(textOf(resource)).toBe(expectedText(3));
  });

  it("stops the loop when the client cancels while the server waits for its answer", async () => {
    let asked: (seen: ElicitationSeen) => void = () => {};
    const elicitation = new Promise<ElicitationSeen>((resolve) => {
      asked = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client, calls } = await connect({
      onElicit: async (seen) => {
        asked(seen);
        await released;
        return { action: "accept", content: { answer: elicitAnswer(seen.message) } };
      },
    });
    const before = calls.count(TOOL);
    const controller = new AbortController();
    const call = client.callTool(TOOL, { rounds: 2 }, controller.signal);
    // Handled at once: a call that fails before its question arrives fails this test, not the whole run.
    call.catch(() => {});
    await Promise.race([
      elicitation,
      call.then(() => {
        throw new Error("the call ended before the server asked its question");
      }),
    ]);
    await calls.reached(TOOL, before + 1);
    expect(calls.count(TOOL)).toBe(before + 1);

    controller.abort(new Error("the user closed the dialog"));
    await expect(call).rejects.toThrow();
    // The answer comes after all: if the server's loop were still waiting, it would run the handler.
    const sentBefore = client.responsesSent.count("response");
    release();
    await Promise.race([client.responsesSent.reached("response", sentBefore + 1), cancelledBy(elicitation)]);
    // One more exchange on the same session: the late answer has been taken in before this one.
    expect(textOf(await client.callTool(ADD, { a: 1, b: 1 }))).toBe("2");
    expect(calls.count(TOOL)).toBe(before + 1);
  });

  it("refuses a call whose question needs a capability the session did not declare (-32021)", async () => {
    const capabilities: Capability[] = ["sampling", "roots"];
    const { client } = await connect({ capabilities });
    await expect(client.callTool(REGISTER, { user: "ada" })).rejects.toMatchObject({
      code: -32021,
      message: expect.stringContaining("elicitation"),
    });
    // The session is still good for what it did declare.
    expect(textOf(await client.callTool(WORKSPACE, {}))).toBe(rootsText(ROOTS));
  });
});

/** Resolves if the server cancels its elicitation (the client then sends no answer at all). */
async function cancelledBy(elicitation: Promise<ElicitationSeen>): Promise<void> {
  const { signal } = await elicitation;
  if (signal.aborted) return;
  await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
}
