import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { InputRequiredResult } from "../../../protocol/schemas/input-required.js";
import { McpServer } from "../mcp-server.js";
import { accept } from "../test-support/answers.js";
import { connectionsClosedAfterEach, WIRES } from "../test-support/connections.js";
import { openSecurity, resolverStateOf } from "../test-support/open-codec.js";
import { type AnyResolver, ask, type Resolver, resolver } from "./resolvers.js";

/**
 * The keys of `inputRequests` (and of the resolver state) are the names the code gives its
 * dependencies: stable across processes and releases, and refused at registration when ambiguous.
 */

const Path = z.object({ path: z.string() });

/** One factory, two resolvers: they differ only by the name each is registered under. */
function pathResolver(label: string) {
  return resolver(() => ask.elicit(`${label} path?`, Path));
}

function copyServer(): McpServer {
  const mcp = new McpServer({ name: "copier", version: "1.0.0" }, { requestStateSecurity: openSecurity() });
  const source = pathResolver("Source");
  const target = pathResolver("Target");
  const plan = resolver({ from: source, to: target }, ({ from, to }) => `${from.path} -> ${to.path}`);
  mcp.tool("copy", { resolve: { source, target, plan } }, (_args, { plan }) => plan);
  return mcp;
}

describe.each(WIRES)("wire keys over %s (65)", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("keys each question by its dependency name, so resolvers from one factory stay apart", async () => {
    const { client } = await connect(copyServer(), wire, { onElicit: () => accept({ path: "/tmp" }) });
    const round = (await client.manualRounds.callTool(
      "copy",
      {},
      { allowInputRequired: true },
    )) as InputRequiredResult;
    expect(Object.keys(round.inputRequests ?? {})).toEqual(["source", "target"]);
    expect(Object.keys(resolverStateOf(round.requestState as string).asked)).toEqual(["source", "target"]);
    const done = await client.callTool("copy", {});
    expect(done.content).toEqual([{ type: "text", text: "/tmp -> /tmp" }]);
  });

  it("produces the same keys and digests on two instances, with no counters or addresses in them", async () => {
    const rounds: InputRequiredResult[] = [];
    for (const mcp of [copyServer(), copyServer()]) {
      const { client } = await connect(mcp, wire, { onElicit: () => accept({ path: "/" }) });
      rounds.push(
        (await client.manualRounds.callTool("copy", {}, { allowInputRequired: true })) as InputRequiredResult,
      );
    }
    const [first, second] = rounds.map((round) => resolverStateOf(round.requestState as string));
    expect(first?.asked).toEqual(second?.asked);
    for (const key of Object.keys(first?.asked ?? {})) expect(key).toMatch(/^[a-z]+$/);
  });

  it("keeps the tool's name for a resolver that a dependant knows under another name", async () => {
    const mcp = new McpServer({ name: "alias", version: "1.0.0" });
    const account = resolver(() => ask.elicit("Account?", z.object({ id: z.string() })));
    const greeting = resolver({ who: account }, ({ who }) => `Hi ${who.id}`);
    mcp.tool("hi", { resolve: { greeting, account } }, (_args, { greeting }) => greeting);
    const { client } = await connect(mcp, wire, { onElicit: () => accept({ id: "a-1" }) });
    const round = (await client.manualRounds.callTool(
      "hi",
      {},
      { allowInputRequired: true },
    )) as InputRequiredResult;
    expect(Object.keys(round.inputRequests ?? {})).toEqual(["account"]);
  });
});

describe("resolver registration", () => {
  it("refuses one name for two different resolvers, naming the tool and the name", () => {
    const mcp = new McpServer({ name: "clash", version: "1.0.0" });
    const first = pathResolver("First");
    const second = pathResolver("Second");
    const both = resolver({ path: second }, ({ path }) => path.path);
    expect(() => mcp.tool("clash", { resolve: { path: first, both } }, () => "x")).toThrow(
      "Tool 'clash' reaches two different resolvers named 'path'; names are the keys of the questions on the wire, so give one of them another name",
    );
  });

  it("refuses a cycle", () => {
    const mcp = new McpServer({ name: "cycle", version: "1.0.0" });
    const deps: Record<string, AnyResolver> = {};
    // resolver() freezes what it makes, so a cycle can only be built by hand.
    const a: Resolver<number> = { deps, run: () => 1, onDecline: "error" };
    const b: Resolver<number> = { deps: { a }, run: () => 2, onDecline: "error" };
    deps.b = b;
    expect(() => mcp.tool("cycle", { resolve: { a } }, () => "x")).toThrow(
      /resolver 'a' has a cyclic dependency/,
    );
  });

  it("refuses dependency names the resolver input already uses, and values that are not resolvers", () => {
    const name = pathResolver("Any");
    expect(() => resolver({ args: name }, () => 1)).toThrow(/cannot be named 'args'/);
    expect(() => resolver({ ctx: name }, () => 1)).toThrow(/cannot be named 'ctx'/);
    const mcp = new McpServer({ name: "bad", version: "1.0.0" });
    expect(() => mcp.tool("bad", { resolve: { oops: (() => 1) as never } }, () => "x")).toThrow(
      "Tool 'bad': resolve.oops is not a resolver; create it with resolver(...)",
    );
  });
});
