import { afterEach, describe, expect, it } from "vitest";
import { elicitForm, inputRequired } from "../protocol/input-required.js";
import type { Tool } from "../protocol/schemas/tools.js";
import { Server } from "../server/index.js";
import { Client } from "./client.js";
import { StructuredContentError } from "./errors.js";
import { type HttpPeer, serveOverHttp } from "./test-support/http-peer.js";
import { FakeClock } from "./test-support/recording.js";

const WEATHER: Tool = {
  name: "weather",
  inputSchema: { type: "object", properties: { reply: { type: "string" } } },
  outputSchema: {
    type: "object",
    properties: { celsius: { type: "number" }, sky: { enum: ["clear", "cloudy"] } },
    required: ["celsius", "sky"],
    additionalProperties: false,
  },
};
const COUNT: Tool = { name: "count", inputSchema: { type: "object" }, outputSchema: { type: "integer" } };
const REMOTE: Tool = {
  name: "remote",
  inputSchema: { type: "object" },
  outputSchema: { $ref: "https://schemas.example.com/weather.json" },
};
const FREE: Tool = { name: "free", inputSchema: { type: "object" } };

/** Each tool answers with the structuredContent named by its `reply` argument. */
const REPLIES: Record<string, { structuredContent?: unknown; isError?: boolean }> = {
  good: { structuredContent: { celsius: 21.5, sky: "clear" } },
  wrong: { structuredContent: { celsius: "warm", sky: "purple", wind: 3 } },
  none: {},
  failed: { isError: true },
  seven: { structuredContent: 7 },
  fraction: { structuredContent: 7.5 },
};

function weatherServer(): Server {
  return new Server({ name: "weather", version: "1.0.0" })
    .onListTools(() => ({ tools: [WEATHER, COUNT, REMOTE, FREE] }))
    .onCallTool((_ctx, params) => {
      const reply = String(params.arguments?.reply ?? "good");
      if (reply === "ask" && params.inputResponses === undefined) {
        return inputRequired({
          inputRequests: { ok: elicitForm("Go on?", { type: "object", properties: {} }) },
        });
      }
      return { content: [{ type: "text", text: reply }], ...REPLIES[reply === "ask" ? "wrong" : reply] };
    });
}

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function listedClient(options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  const peer = await serveOverHttp(weatherServer());
  peers.push(peer);
  const client = new Client(peer.url, { clock: new FakeClock(), ...options });
  await client.listTools();
  return client;
}

async function refusal(call: Promise<unknown>): Promise<StructuredContentError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StructuredContentError);
  return error as StructuredContentError;
}

describe("structuredContent checked against the tool's outputSchema", () => {
  it("returns a result whose structuredContent matches, object or not", async () => {
    const client = await listedClient();
    const weather = await client.callTool("weather", { reply: "good" });
    expect(weather.structuredContent).toEqual({ celsius: 21.5, sky: "clear" });
    expect((await client.callTool("count", { reply: "seven" })).structuredContent).toBe(7);
  });

  it("refuses a value that does not match, naming each place it fails, and keeps the result", async () => {
    const client = await listedClient();
    const error = await refusal(client.callTool("weather", { reply: "wrong" }));
    expect(error.code).toBe("ERR_STRUCTURED_CONTENT");
    expect(error.tool).toBe("weather");
    expect(error.violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^field 'celsius': .*number/),
        expect.stringMatching(/^field 'sky': /),
        expect.stringMatching(/wind/),
      ]),
    );
    expect(error.message).toMatch(/validateStructuredContent: false/);
    expect(error.result.structuredContent).toEqual({ celsius: "warm", sky: "purple", wind: 3 });
    const count = await refusal(client.callTool("count", { reply: "fraction" }));
    expect(count.violations[0]).toMatch(/integer/);
  });

  it("refuses a successful result with no structuredContent, and lets a tool error through", async () => {
    const client = await listedClient();
    const error = await refusal(client.callTool("weather", { reply: "none" }));
    expect(error.message).toMatch(/declares an outputSchema but returned no structuredContent/);
    expect(error.violations).toEqual([]);
    const failed = await client.callTool("weather", { reply: "failed" });
    expect(failed.isError).toBe(true);
  });

  it("checks the complete result of a call that went through rounds, and the manual loop's", async () => {
    const client = await listedClient({ onElicit: () => ({ action: "accept", content: {} }) });
    await refusal(client.callTool("weather", { reply: "ask" }));
    await refusal(client.manualRounds.callTool("weather", { reply: "wrong" }, { allowInputRequired: true }));
  });

  it("never fetches a remote $ref: a schema it cannot evaluate is an error that says so", async () => {
    const client = await listedClient();
    const error = await refusal(client.callTool("remote", { reply: "good" }));
    expect(error.message).toMatch(
      /cannot evaluate \(.*\$ref "https:\/\/schemas\.example\.com.*never fetched/,
    );
  });

  it("checks nothing for a tool without outputSchema, one not listed yet, or when turned off", async () => {
    const client = await listedClient();
    expect((await client.callTool("free", { reply: "wrong" })).structuredContent).toMatchObject({ wind: 3 });
    const peer = await serveOverHttp(weatherServer());
    peers.push(peer);
    const unlisted = new Client(peer.url);
    expect((await unlisted.callTool("weather", { reply: "wrong" })).isError).toBeUndefined();
    const unchecked = await listedClient({ validateStructuredContent: false });
    expect((await unchecked.callTool("weather", { reply: "none" })).structuredContent).toBeUndefined();
  });
});
