import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { Client } from "../../../client/client.js";
import { elicitForm, isInputRequiredResult } from "../../../protocol/input-required.js";
import type { InputRequiredResult, InputResponses } from "../../../protocol/schemas/input-required.js";
import type { CallToolResult } from "../../../protocol/schemas/tools.js";
import { toElicitationSchema } from "../elicitation-schema.js";
import { McpServer } from "../mcp-server.js";
import { accept } from "../test-support/answers.js";
import { connectionsClosedAfterEach, WIRES } from "../test-support/connections.js";
import { openSecurity, plaintextOf, resolverStateOf, withPlaintext } from "../test-support/open-codec.js";
import { questionDigest } from "./resolver-state.js";
import { ask, resolver } from "./resolvers.js";

/**
 * How the resolver engine treats what comes back: answers pinned to the exact question, state entries
 * it did not write, and answers it cannot use. Each round is driven by hand through `client.manualRounds`.
 */

const Login = z.object({ name: z.string() });
const Confirm = z.object({ ok: z.boolean() });
const Team = z.object({ team: z.string() });

const NEVER_CALLED = {
  onElicit: () => accept({}),
  onSample: () => ({ role: "assistant" as const, content: { type: "text" as const, text: "" }, model: "m" }),
};

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

async function round(
  client: Client,
  tool: string,
  fields: { inputResponses?: InputResponses; requestState?: string } = {},
): Promise<CallToolResult | InputRequiredResult> {
  return client.manualRounds.callTool(tool, {}, { allowInputRequired: true, ...fields });
}

function asking(
  result: CallToolResult | InputRequiredResult,
): InputRequiredResult & { requestState: string } {
  if (!isInputRequiredResult(result) || typeof result.requestState !== "string") {
    throw new Error(`expected an InputRequiredResult with state, got ${JSON.stringify(result)}`);
  }
  return result as InputRequiredResult & { requestState: string };
}

function completed(result: CallToolResult | InputRequiredResult): CallToolResult {
  if (isInputRequiredResult(result))
    throw new Error(`expected a complete result, got ${JSON.stringify(result)}`);
  return result as CallToolResult;
}

function messagesOf(result: InputRequiredResult): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
    messages[key] = request.method === "elicitation/create" ? request.params.message : request.method;
  }
  return messages;
}

function digestOf(message: string, schema: z.ZodObject): string {
  return questionDigest(elicitForm(message, toElicitationSchema(schema)));
}

function server(): McpServer {
  return new McpServer({ name: "answers", version: "1.0.0" }, { requestStateSecurity: openSecurity() });
}

/** user -> team -> confirm: three questions, each depending on the previous. */
function chainServer(): McpServer {
  const mcp = server();
  const user = resolver(() => ask.elicit("Username?", Login));
  const team = resolver({ user }, ({ user }) => ask.elicit(`Team for ${user.name}?`, Team));
  const confirm = resolver({ user, team }, ({ user, team }) =>
    ask.elicit(`Add ${user.name} to ${team.team}?`, Confirm),
  );
  mcp.tool("join", { resolve: { user, team, confirm } }, (_args, { user, team, confirm }) =>
    confirm.ok ? `${user.name} joined ${team.team}` : "nothing changed",
  );
  return mcp;
}

describe.each(WIRES)("answers and state entries over %s", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("ignores unknown answer keys and ghost state entries and does not carry them forward (56)", async () => {
    const { client } = await connect(chainServer(), wire, NEVER_CALLED);
    const first = asking(await round(client, "join"));
    const state = resolverStateOf(first.requestState);
    const ghost = { action: "accept", data: { name: "mallory" }, q: "AAAAAAAAAAAAAAAAAAAAAA" };
    const forged = withPlaintext(first.requestState, JSON.stringify({ ...state, outcomes: { ghost } }));
    const second = asking(
      await round(client, "join", {
        requestState: forged,
        inputResponses: { user: accept({ name: "ada" }), bogus: accept({ name: "eve" }) },
      }),
    );
    expect(messagesOf(second)).toEqual({ team: "Team for ada?" });
    expect(Object.keys(resolverStateOf(second.requestState).outcomes)).toEqual(["user"]);
  });

  it("re-asks instead of failing when a sealed entry does not fit the question or has no digest (57)", async () => {
    const { client } = await connect(chainServer(), wire, NEVER_CALLED);
    const first = asking(await round(client, "join"));
    const q = digestOf("Username?", Login);
    const entries = [
      { action: "accept", data: { name: 42 }, q },
      { action: "accept", data: { name: "eve" } },
      { action: "accept", data: "eve", q },
    ];
    for (const entry of entries) {
      const forged = withPlaintext(
        first.requestState,
        JSON.stringify({ v: 3, outcomes: { user: entry }, asked: {} }),
      );
      const again = asking(await round(client, "join", { requestState: forged }));
      expect(messagesOf(again)).toEqual({ user: "Username?" });
      expect(resolverStateOf(again.requestState).outcomes).toEqual({});
    }
  });

  it("never lets a state entry replace a value a resolver computes (58)", async () => {
    const mcp = server();
    const who = resolver(() => "computed");
    const confirm = resolver(() => ask.elicit("Go?", Confirm));
    mcp.tool("go", { resolve: { who, confirm } }, (_args, { who }) => `who=${who}`);
    const { client } = await connect(mcp, wire, NEVER_CALLED);
    const first = asking(await round(client, "go"));
    const asked = resolverStateOf(first.requestState).asked;
    for (const entry of [
      { action: "accept", data: "forged", q: "x" },
      { action: "decline", data: null, q: "x" },
    ]) {
      const forged = withPlaintext(
        first.requestState,
        JSON.stringify({ v: 3, outcomes: { who: entry }, asked }),
      );
      const done = completed(
        await round(client, "go", {
          requestState: forged,
          inputResponses: { confirm: accept({ ok: true }) },
        }),
      );
      expect(textOf(done)).toBe("who=computed");
    }
  });

  it.each([
    [
      "a schema mismatch",
      { user: accept({ name: 42 }) },
      "The answer to resolver 'user' does not match the requested schema (field 'name': Invalid input: expected string, received number)",
    ],
    [
      "an accept without content",
      { user: { action: "accept" as const } },
      "Resolver 'user' received an accepted elicitation with no content",
    ],
    [
      "a sampling result for a form",
      { user: { role: "assistant" as const, content: { type: "text" as const, text: "x" }, model: "m" } },
      "Resolver 'user' received a non-elicitation response",
    ],
  ])(
    "answers %s with a tool error that leaks no validator internals (59)",
    async (_case, responses, text) => {
      const { client } = await connect(chainServer(), wire, NEVER_CALLED);
      const first = asking(await round(client, "join"));
      const result = completed(
        await round(client, "join", { requestState: first.requestState, inputResponses: responses }),
      );
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(text);
      expect(textOf(result)).not.toMatch(/zod|https?:|\$ZodError|issues/i);
    },
  );

  it("answers a form result for a sampling question with a wrong-kind tool error (59)", async () => {
    const mcp = server();
    const draft = resolver(() => ask.sample({ messages: [], maxTokens: 5 }));
    mcp.tool("draft", { resolve: { draft } }, () => "x");
    const { client } = await connect(mcp, wire, NEVER_CALLED);
    const first = asking(await round(client, "draft"));
    const result = completed(
      await round(client, "draft", {
        requestState: first.requestState,
        inputResponses: { draft: accept({ a: "b" }) },
      }),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Resolver 'draft' received a response of the wrong kind (expected a sampling result)",
    );
  });

  it("re-asks only a reworded question; a sibling's answer survives (61)", async () => {
    let wording = "Region?";
    const mcp = server();
    const region = resolver(() => ask.elicit(wording, z.object({ region: z.string() })));
    const size = resolver(() => ask.elicit("Size?", z.object({ size: z.number() })));
    const confirm = resolver({ region, size }, ({ region, size }) =>
      ask.elicit(`${size.size} in ${region.region}?`, Confirm),
    );
    mcp.tool(
      "order",
      { resolve: { region, size, confirm } },
      (_args, { region, size }) => `${size.size}@${region.region}`,
    );
    const { client } = await connect(mcp, wire, NEVER_CALLED);
    const first = asking(await round(client, "order"));
    expect(messagesOf(first)).toEqual({ region: "Region?", size: "Size?" });
    const second = asking(
      await round(client, "order", {
        requestState: first.requestState,
        inputResponses: { region: accept({ region: "eu" }), size: accept({ size: 3 }) },
      }),
    );
    expect(messagesOf(second)).toEqual({ confirm: "3 in eu?" });
    wording = "Which region, now that eu is full?";
    const third = asking(
      await round(client, "order", {
        requestState: second.requestState,
        inputResponses: { confirm: accept({ ok: true }) },
      }),
    );
    expect(messagesOf(third)).toEqual({ region: "Which region, now that eu is full?" });
    const before = resolverStateOf(second.requestState).outcomes;
    const after = resolverStateOf(third.requestState).outcomes;
    expect(after.region).toBeUndefined();
    expect(after.size).toEqual(before.size);
    const fourth = asking(
      await round(client, "order", {
        requestState: third.requestState,
        inputResponses: { region: accept({ region: "us" }) },
      }),
    );
    expect(messagesOf(fourth)).toEqual({ confirm: "3 in us?" });
  });

  it("drops a decline pinned to the old wording and asks the new question (61)", async () => {
    let wording = "Nickname?";
    const mcp = server();
    const nick = resolver(() => ask.elicit(wording, z.object({ nick: z.string() })), {
      onDecline: "outcome",
    });
    const confirm = resolver({ nick }, () => ask.elicit("Sure?", Confirm));
    mcp.tool("nick", { resolve: { nick, confirm } }, (_args, { nick }) => nick.action);
    const { client } = await connect(mcp, wire, NEVER_CALLED);
    const first = asking(await round(client, "nick"));
    const second = asking(
      await round(client, "nick", {
        requestState: first.requestState,
        inputResponses: { nick: { action: "decline" } },
      }),
    );
    expect(resolverStateOf(second.requestState).outcomes.nick?.action).toBe("decline");
    wording = "Nickname (optional)?";
    const third = asking(await round(client, "nick", { requestState: second.requestState }));
    expect(messagesOf(third)).toEqual({ nick: "Nickname (optional)?" });
  });

  it("does not consume an answer to a question that was reworded after it was asked (61)", async () => {
    let wording = "Region?";
    const mcp = server();
    const region = resolver(() => ask.elicit(wording, z.object({ region: z.string() })));
    mcp.tool("where", { resolve: { region } }, (_args, { region }) => region.region);
    const { client } = await connect(mcp, wire, NEVER_CALLED);
    const first = asking(await round(client, "where"));
    wording = "Region (eu or us)?";
    const second = asking(
      await round(client, "where", {
        requestState: first.requestState,
        inputResponses: { region: accept({ region: "eu" }) },
      }),
    );
    expect(messagesOf(second)).toEqual({ region: "Region (eu or us)?" });
    const done = completed(
      await round(client, "where", {
        requestState: second.requestState,
        inputResponses: { region: accept({ region: "us" }) },
      }),
    );
    expect(textOf(done)).toBe("us");
  });

  it("re-asks an answer sent without the state that asked it (61)", async () => {
    const { client } = await connect(chainServer(), wire, NEVER_CALLED);
    const again = asking(await round(client, "join", { inputResponses: { user: accept({ name: "ada" }) } }));
    expect(messagesOf(again)).toEqual({ user: "Username?" });
  });

  it("carries restored answers forward unchanged, pinned to the digest of the question shown (62)", async () => {
    const { client } = await connect(chainServer(), wire, NEVER_CALLED);
    const first = asking(await round(client, "join"));
    expect(resolverStateOf(first.requestState)).toEqual({
      v: 3,
      outcomes: {},
      asked: { user: digestOf("Username?", Login) },
    });
    const second = asking(
      await round(client, "join", {
        requestState: first.requestState,
        inputResponses: { user: accept({ name: "ada" }) },
      }),
    );
    const third = asking(
      await round(client, "join", {
        requestState: second.requestState,
        inputResponses: { team: accept({ team: "core" }) },
      }),
    );
    const secondState = resolverStateOf(second.requestState);
    const thirdState = resolverStateOf(third.requestState);
    expect(secondState.outcomes.user).toEqual({
      action: "accept",
      data: { name: "ada" },
      q: digestOf("Username?", Login),
    });
    expect(JSON.stringify(thirdState.outcomes.user)).toBe(JSON.stringify(secondState.outcomes.user));
    expect(thirdState.outcomes.team?.q).toBe(digestOf("Team for ada?", Team));
    expect(thirdState.asked).toEqual({ confirm: digestOf("Add ada to core?", Confirm) });
    expect(thirdState.v).toBe(3);
    const done = completed(
      await round(client, "join", {
        requestState: third.requestState,
        inputResponses: { confirm: accept({ ok: true }) },
      }),
    );
    expect(textOf(done)).toBe("ada joined core");
  });

  it("reads a state of another version as no progress (62)", async () => {
    const { client } = await connect(chainServer(), wire, NEVER_CALLED);
    const first = asking(await round(client, "join"));
    const second = asking(
      await round(client, "join", {
        requestState: first.requestState,
        inputResponses: { user: accept({ name: "ada" }) },
      }),
    );
    const older = JSON.stringify({ ...resolverStateOf(second.requestState), v: 1 });
    const restarted = asking(
      await round(client, "join", {
        requestState: withPlaintext(second.requestState, older),
        inputResponses: { team: accept({ team: "core" }) },
      }),
    );
    expect(messagesOf(restarted)).toEqual({ user: "Username?" });
    expect(plaintextOf(restarted.requestState)).toContain('"v":3');
  });
});
