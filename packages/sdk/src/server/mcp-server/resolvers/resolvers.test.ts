import { describe, expect, it } from "vitest";
import * as z from "zod";
import { InputRequiredRoundsExceededError } from "../../../client/errors.js";
import { McpError } from "../../../protocol/errors.js";
import { isInputRequiredResult } from "../../../protocol/input-required.js";
import type { CallToolResult } from "../../../protocol/schemas/tools.js";
import { assertResultResponse } from "../../../test-support/wire-schema.js";
import { McpServer } from "../mcp-server.js";
import { accept, scriptedUser } from "../test-support/answers.js";
import { connectionsClosedAfterEach, resultOf, WIRES } from "../test-support/connections.js";
import { openSecurity, resolverStateOf } from "../test-support/open-codec.js";
import { ask, resolver } from "./resolvers.js";

const Login = z.object({ name: z.string() });
const Confirm = z.object({ ok: z.boolean() });

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A whoami tool: asks for a username, then asks to confirm it; counts how often each body runs. */
function whoamiServer() {
  const runs = { login: 0, confirm: 0, handler: 0 };
  const login = resolver(() => {
    runs.login += 1;
    return ask.elicit("Username?", Login);
  });
  const confirm = resolver({ login }, ({ login }) => {
    runs.confirm += 1;
    return ask.elicit(`As ${login.name}?`, Confirm);
  });
  const mcp = new McpServer({ name: "whoami", version: "1.0.0" }, { requestStateSecurity: openSecurity() });
  mcp.tool("whoami", { resolve: { login, confirm } }, (_args, { login, confirm }) => {
    runs.handler += 1;
    return confirm.ok ? `You are ${login.name}` : "Not confirmed";
  });
  return { mcp, runs };
}

describe.each(WIRES)("resolvers over %s", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("asks the first question with the rendered message under the resolver's name, running nothing else (51)", async () => {
    const { mcp, runs } = whoamiServer();
    const { client, legs } = await connect(mcp, wire, { onElicit: () => accept({ name: "x" }) });
    const round = await client.manualRounds.callTool("whoami", {}, { allowInputRequired: true });
    expect(isInputRequiredResult(round)).toBe(true);
    if (!isInputRequiredResult(round)) return;
    expect(round.inputRequests).toEqual({
      login: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Username?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    });
    expect(round.requestState).toMatch(/^open\./);
    expect(runs).toEqual({ login: 1, confirm: 0, handler: 0 });
    const leg = legs("tools/call")[0];
    assertResultResponse("tools/call", leg?.response);
  });

  it("asks dependent questions one round after another and runs each resolver once per round (53)", async () => {
    const { mcp, runs } = whoamiServer();
    const user = scriptedUser((message) =>
      message === "Username?" ? accept({ name: "octocat" }) : accept({ ok: true }),
    );
    const { client, legs } = await connect(mcp, wire, { onElicit: user.onElicit });
    const result = await client.callTool("whoami", {});
    expect(textOf(result)).toBe("You are octocat");
    expect(user.asked).toEqual(["Username?", "As octocat?"]);
    expect(user.keys).toEqual(["login", "confirm"]);
    expect(runs).toEqual({ login: 3, confirm: 2, handler: 1 });
    expect(legs("tools/call")).toHaveLength(3);
  });

  it("completes a chain of three dependent questions", async () => {
    const user = resolver(() => ask.elicit("Username?", Login));
    const team = resolver({ user }, ({ user }) =>
      ask.elicit(`Team for ${user.name}?`, z.object({ team: z.string() })),
    );
    const role = resolver({ user, team }, ({ user, team }) =>
      ask.elicit(`Role of ${user.name} in ${team.team}?`, z.object({ role: z.enum(["dev", "ops"]) })),
    );
    const mcp = new McpServer({ name: "org", version: "1.0.0" });
    mcp.tool("grant", { resolve: { role, team, user } }, (_args, { user, team, role }) => {
      return `${user.name} is ${role.role} in ${team.team}`;
    });
    const answers: Record<string, Record<string, string>> = {
      "Username?": { name: "ada" },
      "Team for ada?": { team: "core" },
      "Role of ada in core?": { role: "ops" },
    };
    const scripted = scriptedUser((message) => accept(answers[message]));
    const { client, legs } = await connect(mcp, wire, { onElicit: scripted.onElicit });
    expect(textOf(await client.callTool("grant", {}))).toBe("ada is ops in core");
    expect(scripted.asked).toEqual(["Username?", "Team for ada?", "Role of ada in core?"]);
    expect(legs("tools/call")).toHaveLength(4);
  });

  it("batches an elicitation, a sampling request and a roots request into one round (54)", async () => {
    let rounds = 0;
    const counter = resolver(() => {
      rounds += 1;
      return rounds;
    });
    const region = resolver(() => ask.elicit("Region?", z.object({ region: z.string() })));
    const summary = resolver(() =>
      ask.sample({
        messages: [{ role: "user", content: { type: "text", text: "Summarise" } }],
        maxTokens: 50,
      }),
    );
    const roots = resolver(() => ask.listRoots());
    const mcp = new McpServer({ name: "batch", version: "1.0.0" });
    mcp.tool("plan", { resolve: { region, summary, roots, counter } }, (_args, values) => {
      const text = values.summary.content;
      const summaryText = !Array.isArray(text) && text.type === "text" ? text.text : "";
      return `${values.region.region} ${summaryText} ${values.roots.roots.map((r) => r.uri).join(",")} rounds=${values.counter}`;
    });
    let sampled = 0;
    const { client, legs } = await connect(mcp, wire, {
      onElicit: () => accept({ region: "eu" }),
      onSample: () => {
        sampled += 1;
        return { role: "assistant", content: { type: "text", text: "short" }, model: "m" };
      },
      onListRoots: () => ({ roots: [{ uri: "file:///work" }] }),
    });
    expect(textOf(await client.callTool("plan", {}))).toBe("eu short file:///work rounds=2");
    const first = resultOf(legs("tools/call")[0]?.response).inputRequests as Record<
      string,
      { method: string }
    >;
    expect(Object.entries(first).map(([key, request]) => [key, request.method])).toEqual([
      ["region", "elicitation/create"],
      ["summary", "sampling/createMessage"],
      ["roots", "roots/list"],
    ]);
    expect(legs("tools/call")).toHaveLength(2);
    expect(sampled).toBe(1);
  });

  it("batches independent questions that are nested under one dependant (54)", async () => {
    const first = resolver(() => ask.elicit("First name?", z.object({ v: z.string() })));
    const last = resolver(() => ask.elicit("Last name?", z.object({ v: z.string() })));
    const full = resolver({ first, last }, ({ first, last }) => `${first.v} ${last.v}`);
    const mcp = new McpServer({ name: "names", version: "1.0.0" });
    mcp.tool("greet", { resolve: { full } }, (_args, { full }) => `Hello ${full}`);
    const user = scriptedUser((message) => accept({ v: message === "First name?" ? "Ada" : "Lovelace" }));
    const { client, legs } = await connect(mcp, wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("greet", {}))).toBe("Hello Ada Lovelace");
    expect(user.keys).toEqual(["first", "last"]);
    expect(legs("tools/call")).toHaveLength(2);
  });

  it.each([
    [accept({ ok: true }), "Deploying"],
    [accept({ ok: false }), "Not confirmed"],
    [{ action: "decline" as const }, "Declined"],
    [{ action: "cancel" as const }, "Cancelled"],
  ])("lets the handler branch on every outcome when asked to (52): %o", async (answer, expected) => {
    const confirm = resolver(() => ask.elicit("Deploy?", Confirm), { onDecline: "outcome" });
    const mcp = new McpServer({ name: "deploy", version: "1.0.0" });
    mcp.tool("deploy", { resolve: { confirm } }, (_args, { confirm }) => {
      if (confirm.action === "decline") return "Declined";
      if (confirm.action === "cancel") return "Cancelled";
      return confirm.content.ok ? "Deploying" : "Not confirmed";
    });
    const { client } = await connect(mcp, wire, { onElicit: () => answer });
    const result = await client.callTool("deploy", {});
    expect(textOf(result)).toBe(expected);
    expect(result.isError).toBeUndefined();
  });

  it.each(["decline", "cancel"] as const)(
    "ends the call with a tool error on %s by default (52)",
    async (action) => {
      const confirm = resolver(() => ask.elicit("Deploy?", Confirm));
      const mcp = new McpServer({ name: "deploy", version: "1.0.0" });
      let ran = false;
      mcp.tool("deploy", { resolve: { confirm } }, () => {
        ran = true;
        return "Deploying";
      });
      const { client } = await connect(mcp, wire, { onElicit: () => ({ action }) });
      const result = await client.callTool("deploy", {});
      expect(result.isError).toBe(true);
      const past = { decline: "declined", cancel: "cancelled" }[action];
      expect(textOf(result)).toBe(
        `Resolver 'confirm' could not resolve: the user ${past} the question. Call the tool again to be asked again`,
      );
      expect(ran).toBe(false);
    },
  );

  it("never asks when a resolver computes its value, even from the tool's arguments (52)", async () => {
    const greeting = resolver(({ args }: { args: { name: string } }) => `Hello, ${args.name}`);
    const mcp = new McpServer({ name: "greeter", version: "1.0.0" });
    mcp.tool(
      "greet",
      { input: z.object({ name: z.string() }), resolve: { greeting } },
      (_args, { greeting }) => {
        return greeting;
      },
    );
    const { client, legs } = await connect(mcp, wire);
    expect(textOf(await client.callTool("greet", { name: "Ada" }))).toBe("Hello, Ada");
    expect(legs("tools/call")).toHaveLength(1);
  });

  it("keeps a decline in the state and does not ask it again while a dependent question is asked (55)", async () => {
    const nickname = resolver(() => ask.elicit("Nickname?", z.object({ nick: z.string() })), {
      onDecline: "outcome",
    });
    const greeting = resolver({ nickname }, ({ nickname }) =>
      ask.elicit(
        nickname.action === "accept" ? `Greet ${nickname.content.nick}?` : "Greet anonymously?",
        Confirm,
      ),
    );
    const mcp = new McpServer(
      { name: "greeter", version: "1.0.0" },
      { requestStateSecurity: openSecurity() },
    );
    mcp.tool("greet", { resolve: { nickname, greeting } }, (_args, { greeting }) =>
      greeting.ok ? "Hello, stranger" : "Goodbye",
    );
    const user = scriptedUser((message) =>
      message === "Nickname?" ? { action: "decline" } : accept({ ok: true }),
    );
    const { client, legs } = await connect(mcp, wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("greet", {}))).toBe("Hello, stranger");
    expect(user.asked).toEqual(["Nickname?", "Greet anonymously?"]);
    const second = String(resultOf(legs("tools/call")[1]?.response).requestState);
    expect(resolverStateOf(second).outcomes.nickname?.action).toBe("decline");
  });

  it("requests a sampled completion once per call even when later rounds follow (64)", async () => {
    const draft = resolver(() =>
      ask.sample({
        messages: [{ role: "user", content: { type: "text", text: "Draft a title" } }],
        maxTokens: 20,
      }),
    );
    const approve = resolver({ draft }, ({ draft }) => {
      const content = Array.isArray(draft.content) ? draft.content[0] : draft.content;
      return ask.elicit(`Use "${content?.type === "text" ? content.text : ""}"?`, Confirm);
    });
    const publish = resolver({ approve }, ({ approve }) =>
      approve.ok ? ask.elicit("Publish now?", Confirm) : false,
    );
    const mcp = new McpServer({ name: "writer", version: "1.0.0" });
    mcp.tool("title", { resolve: { draft, approve, publish } }, (_args, { publish }) =>
      publish === false ? "kept" : publish.ok ? "published" : "saved",
    );
    let samples = 0;
    const { client, legs } = await connect(mcp, wire, {
      onElicit: () => accept({ ok: true }),
      onSample: () => {
        samples += 1;
        return { role: "assistant", content: { type: "text", text: "Roundtrip" }, model: "m" };
      },
    });
    expect(textOf(await client.callTool("title", {}))).toBe("published");
    expect(samples).toBe(1);
    expect(legs("tools/call")).toHaveLength(4);
  });

  it("accepts a plain completion for a sampling request that offers tools (64)", async () => {
    const pick = resolver(() =>
      ask.sample({
        messages: [{ role: "user", content: { type: "text", text: "Pick one" } }],
        maxTokens: 20,
        tools: [{ name: "lookup", inputSchema: { type: "object" } }],
        toolChoice: { mode: "auto" },
      }),
    );
    const mcp = new McpServer({ name: "picker", version: "1.0.0" });
    mcp.tool("pick", { resolve: { pick } }, (_args, { pick }) => pick.model);
    const { client } = await connect(mcp, wire, {
      samplingTools: true,
      onSample: () => ({ role: "assistant", content: { type: "text", text: "a" }, model: "tiny" }),
    });
    expect(textOf(await client.callTool("pick", {}))).toBe("tiny");
  });

  it("stops an eleven-question chain at the client's default budget of ten retries (60)", async () => {
    let chain = resolver(() => ask.elicit("Question 1?", Confirm));
    const links: Record<string, typeof chain> = { q1: chain };
    for (let index = 2; index <= 11; index += 1) {
      const previous = chain;
      chain = resolver({ previous }, () => ask.elicit(`Question ${index}?`, Confirm));
      links[`q${index}`] = chain;
    }
    const mcp = new McpServer({ name: "long", version: "1.0.0" });
    mcp.tool("long", { resolve: links }, () => "done");
    const user = scriptedUser(() => accept({ ok: true }));
    const { client, legs } = await connect(mcp, wire, { onElicit: user.onElicit });
    const failure = await client.callTool("long", {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect((failure as InputRequiredRoundsExceededError).maxRounds).toBe(10);
    expect(user.asked).toHaveLength(10);
    expect(legs("tools/call")).toHaveLength(11);
  });
});

describe.each(WIRES)("the capability gate for resolvers over %s (63)", (wire) => {
  const connect = connectionsClosedAfterEach();

  function gatedServer() {
    const mcp = new McpServer({ name: "gated", version: "1.0.0" });
    const summary = resolver(() => ask.sample({ messages: [], maxTokens: 5 }));
    const roots = resolver(() => ask.listRoots());
    const choice = resolver(() =>
      ask.sample({ messages: [], maxTokens: 5, tools: [], toolChoice: { mode: "auto" } }),
    );
    const name = resolver(() => ask.elicit("Name?", Login));
    mcp.tool("summarise", { resolve: { summary } }, () => "x");
    mcp.tool("roots", { resolve: { roots } }, () => "x");
    mcp.tool("choose", { resolve: { choice } }, () => "x");
    mcp.tool("name", { resolve: { name } }, (_args, { name }) => name.name);
    mcp.tool("plain", {}, () => "still here");
    return mcp;
  }

  it.each([
    ["summarise", { sampling: {} }, "sampling", "summary"],
    ["roots", { roots: {} }, "roots", "roots"],
    ["name", { elicitation: { form: {} } }, "elicitation.form", "name"],
  ])("refuses %s with -32021 naming what is missing and the resolver", async (tool, required, label, key) => {
    const { client } = await connect(gatedServer(), wire);
    const error = await client.callTool(tool, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32021);
    expect((error as McpError).data).toEqual({ requiredCapabilities: required });
    expect((error as McpError).message).toBe(
      `Client did not declare the ${label} capability required by resolver '${key}'`,
    );
    expect(textOf(await client.callTool("plain", {}))).toBe("still here");
  });

  it("requires sampling.tools for a sampling request that offers tools", async () => {
    const { client } = await connect(gatedServer(), wire, {
      onSample: () => ({ role: "assistant", content: { type: "text", text: "a" }, model: "m" }),
    });
    const error = (await client.callTool("choose", {}).catch((caught: unknown) => caught)) as McpError;
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: { tools: {} } } });
  });
});

describe("the capability gate applies only when a question is about to be asked (63)", () => {
  it("consumes an answer on a retry that no longer declares elicitation", async () => {
    const { mcp } = whoamiServer();
    const call = async (capabilities: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const handled = await mcp.handleRequest({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
          name: "whoami",
          ...extra,
        },
      });
      return handled.message as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string };
      };
    };
    const first = await call({ elicitation: {} });
    const state = first.result?.requestState;
    expect(typeof state).toBe("string");
    const second = await call(
      {},
      { requestState: state, inputResponses: { login: accept({ name: "ada" }) } },
    );
    // The username is consumed without the capability; asking the confirmation then needs it.
    expect(second.error?.code).toBe(-32021);
    expect(second.error?.message).toContain("required by resolver 'confirm'");
    const third = await call(
      { elicitation: {} },
      { requestState: state, inputResponses: { login: accept({ name: "ada" }) } },
    );
    expect(third.result?.inputRequests).toHaveProperty("confirm");
  });
});
