import { Client, type ElicitParams, type InputResponses, isInputRequiredResult } from "@roundtrip/sdk";
import type { SampleCallback } from "@roundtrip/sdk/client";
import type { InputResponse } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elicitAnswer, expectedText, PROMPT, questionAt, sampleAnswer, TOOL } from "../src/ask-flow.js";
import { type OfficialServer, startOfficialServer } from "../src/official-server.js";

/**
 * Roundtrip's client against the official TypeScript SDK v2 server (createMcpHandler on node:http,
 * requestState signed by its createRequestStateCodec): tools, prompts and resource templates that
 * need two and three legs, through the automatic loop and by hand.
 */

let server: OfficialServer;
beforeAll(async () => {
  server = await startOfficialServer();
});
afterAll(() => server.close());

const onElicit = (params: ElicitParams) => ({
  action: "accept" as const,
  content: { answer: elicitAnswer(params.message) },
});
const onSample: SampleCallback = (params) => {
  const content = params.messages[0]?.content;
  const text = content && !Array.isArray(content) && content.type === "text" ? content.text : "";
  return { role: "assistant", content: { type: "text", text: sampleAnswer(text) }, model: "interop" };
};

/** A client whose every POST body is kept, to see what each retry carried. */
function roundtripClient() {
  const bodies: Record<string, unknown>[] = [];
  const recording: typeof fetch = async (input, init) => {
    if (typeof init?.body === "string") bodies.push(JSON.parse(init.body) as Record<string, unknown>);
    return fetch(input, init);
  };
  const client = new Client(server.url, { onElicit, onSample, http: { fetch: recording } });
  const retries = (method: string) =>
    bodies.filter(
      (body) =>
        body.method === method && (body.params as { requestState?: unknown }).requestState !== undefined,
    );
  return { client, bodies, retries };
}

function text(
  result: { content: unknown[] } | { messages: { content: unknown }[] } | { contents: unknown[] },
): string {
  if ("content" in result) return (result.content[0] as { text: string }).text;
  if ("messages" in result) return (result.messages[0]?.content as { text: string } | undefined)?.text ?? "";
  return (result.contents[0] as { text: string }).text;
}

describe("Roundtrip client → official server", () => {
  it("discovers 2026-07-28 and the server's identity", async () => {
    const { client } = roundtripClient();
    await client.connect();
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo?.name).toBe("official-ask");
    expect(client.serverCapabilities?.tools).toBeDefined();
  });

  describe.each([2, 3])("automatic loop, %i legs", (rounds) => {
    it("tool", async () => {
      const { client, retries } = roundtripClient();
      const result = await client.callTool(TOOL, { rounds });
      expect(text(result)).toBe(expectedText(rounds));
      const echoed = retries("tools/call").map(
        (body) => (body.params as { requestState: string }).requestState,
      );
      expect(echoed).toHaveLength(rounds - 1);
      for (const state of echoed) expect(server.minted).toContain(state);
    });

    it("prompt", async () => {
      const { client } = roundtripClient();
      expect(text(await client.getPrompt(PROMPT, { rounds: String(rounds) }))).toBe(expectedText(rounds));
    });

    it("resource template", async () => {
      const { client } = roundtripClient();
      expect(text(await client.readResource(`ask://${rounds}`))).toBe(expectedText(rounds));
    });
  });

  describe("manual loop with client.manualRounds, 3 legs", () => {
    /** Answers a round by hand, exactly as the callbacks would. */
    function answer(inputRequests: Record<string, { method: string; params?: unknown }>): InputResponses {
      return Object.fromEntries(
        Object.entries(inputRequests).map(([key, request]) => {
          const message = questionAt(Number(key.slice(1)) - 1).message;
          const response: InputResponse =
            request.method === "elicitation/create"
              ? { action: "accept" as const, content: { answer: elicitAnswer(message) } }
              : {
                  role: "assistant" as const,
                  content: { type: "text" as const, text: sampleAnswer(message) },
                  model: "hand",
                };
          return [key, response];
        }),
      );
    }

    it("tool: each round returned, state echoed byte for byte from a saved copy", async () => {
      const { client, bodies } = roundtripClient();
      let round = await client.manualRounds.callTool(TOOL, { rounds: 3 }, { allowInputRequired: true });
      let legs = 1;
      while (isInputRequiredResult(round)) {
        // What a caller would persist between rounds, even across processes.
        const saved = JSON.parse(JSON.stringify(round)) as typeof round;
        round = await client.manualRounds.callTool(
          TOOL,
          { rounds: 3 },
          {
            allowInputRequired: true,
            inputResponses: answer(saved.inputRequests ?? {}),
            requestState: saved.requestState,
          },
        );
        legs += 1;
        const sent = bodies.at(-1)?.params as { requestState?: string };
        expect(sent.requestState).toBe(saved.requestState);
      }
      expect(legs).toBe(3);
      expect(text(round)).toBe(expectedText(3));
    });

    it("prompt and resource template", async () => {
      const { client } = roundtripClient();
      let prompt = await client.manualRounds.getPrompt(PROMPT, { rounds: "3" }, { allowInputRequired: true });
      while (isInputRequiredResult(prompt)) {
        prompt = await client.manualRounds.getPrompt(
          PROMPT,
          { rounds: "3" },
          {
            allowInputRequired: true,
            inputResponses: answer(prompt.inputRequests ?? {}),
            requestState: prompt.requestState,
          },
        );
      }
      expect(text(prompt)).toBe(expectedText(3));

      let resource = await client.manualRounds.readResource("ask://3", { allowInputRequired: true });
      while (isInputRequiredResult(resource)) {
        resource = await client.manualRounds.readResource("ask://3", {
          allowInputRequired: true,
          inputResponses: answer(resource.inputRequests ?? {}),
          requestState: resource.requestState,
        });
      }
      expect(text(resource)).toBe(expectedText(3));
    });

    it("a state the official codec did not mint is refused with its frozen error", async () => {
      const { client } = roundtripClient();
      const round = await client.manualRounds.callTool(TOOL, { rounds: 2 }, { allowInputRequired: true });
      if (!isInputRequiredResult(round)) throw new Error("expected a round");
      const tampered = `${round.requestState}x`;
      await expect(
        client.manualRounds.callTool(
          TOOL,
          { rounds: 2 },
          { allowInputRequired: true, requestState: tampered },
        ),
      ).rejects.toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    });
  });
});
