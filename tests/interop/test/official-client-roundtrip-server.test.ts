import {
  type ClientOptions,
  isInputRequiredResult,
  Client as OfficialClient,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elicitAnswer, expectedText, PROMPT, questionAt, sampleAnswer, TOOL } from "../src/ask-flow.js";
import type { Listening } from "../src/listen.js";
import { startRoundtripServer } from "../src/roundtrip-server.js";

/**
 * The official TypeScript SDK v2 client (versionNegotiation auto) against Roundtrip's low-level Server
 * on createNodeHandler: the same two- and three-leg tools, prompts and resource templates, through
 * its automatic loop and its manual one (autoFulfill off, allowInputRequired per call).
 */

let server: Listening;
const open: OfficialClient[] = [];
beforeAll(async () => {
  server = await startRoundtripServer();
});
afterAll(async () => {
  await Promise.all(open.map((client) => client.close()));
  await server.close();
});

const INFO = { name: "official-interop-client", version: "2.4.0" };

function messageText(content: unknown): string {
  const block = Array.isArray(content) ? content[0] : content;
  return (block as { type?: string; text?: string } | undefined)?.text ?? "";
}

async function officialClient(options: ClientOptions = {}): Promise<OfficialClient> {
  const client = new OfficialClient(INFO, {
    versionNegotiation: { mode: "auto" },
    capabilities: { elicitation: { form: {} }, sampling: {} },
    ...options,
  });
  client.setRequestHandler("elicitation/create", async (request) => ({
    action: "accept",
    content: { answer: elicitAnswer(request.params.message) },
  }));
  client.setRequestHandler("sampling/createMessage", async (request) => ({
    role: "assistant",
    content: { type: "text", text: sampleAnswer(messageText(request.params.messages[0]?.content)) },
    model: "official",
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  open.push(client);
  return client;
}

function textOf(result: Record<string, unknown>): string {
  if (Array.isArray(result.content)) return (result.content[0] as { text: string }).text;
  if (Array.isArray(result.messages))
    return messageText((result.messages[0] as { content: unknown }).content);
  return (result.contents as { text: string }[])[0]?.text ?? "";
}

/** Answers a round the way the registered handlers would, for the manual loop. */
function answer(inputRequests: Record<string, { method: string }>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(inputRequests).map(([key, request]) => {
      const message = questionAt(Number(key.slice(1)) - 1).message;
      return [
        key,
        request.method === "elicitation/create"
          ? { action: "accept", content: { answer: elicitAnswer(message) } }
          : { role: "assistant", content: { type: "text", text: sampleAnswer(message) }, model: "hand" },
      ];
    }),
  );
}

describe("official client → Roundtrip server", () => {
  it("negotiates the modern era at 2026-07-28 through server/discover", async () => {
    const client = await officialClient();
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  });

  describe.each([2, 3])("automatic loop, %i legs", (rounds) => {
    it("tool", async () => {
      const client = await officialClient();
      const result = await client.callTool({ name: TOOL, arguments: { rounds } });
      expect(textOf(result)).toBe(expectedText(rounds));
    });

    it("prompt", async () => {
      const client = await officialClient();
      const result = await client.getPrompt({ name: PROMPT, arguments: { rounds: String(rounds) } });
      expect(textOf(result)).toBe(expectedText(rounds));
    });

    it("resource template", async () => {
      const client = await officialClient();
      const result = await client.readResource({ uri: `ask://${rounds}` });
      expect(textOf(result)).toBe(expectedText(rounds));
    });
  });

  describe("manual loop (autoFulfill off, allowInputRequired per call), 3 legs", () => {
    const cases = [
      { method: "tools/call" as const, params: { name: TOOL, arguments: { rounds: 3 } } },
      { method: "prompts/get" as const, params: { name: PROMPT, arguments: { rounds: "3" } } },
      { method: "resources/read" as const, params: { uri: "ask://3" } },
    ];

    it.each(cases)("$method", async ({ method, params }) => {
      const client = await officialClient({ inputRequired: { autoFulfill: false } });
      let result: Record<string, unknown> = await client.request(
        { method, params },
        { allowInputRequired: true },
      );
      const states: string[] = [];
      while (isInputRequiredResult(result)) {
        expect(typeof result.requestState).toBe("string");
        states.push(result.requestState as string);
        result = await client.request(
          {
            method,
            params: {
              ...params,
              inputResponses: answer(result.inputRequests ?? {}),
              requestState: result.requestState,
            },
          },
          { allowInputRequired: true },
        );
      }
      expect(states).toHaveLength(2);
      expect(JSON.parse(states[1] ?? "{}")).toEqual({ answers: [elicitAnswer("Question 1?")] });
      expect(textOf(result)).toBe(expectedText(3));
    });
  });
});
