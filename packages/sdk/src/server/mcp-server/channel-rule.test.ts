import { describe, expect, expectTypeOf, it } from "vitest";
import * as z from "zod";
import { McpError } from "../../protocol/errors.js";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { silentLogger } from "../../protocol/logger.js";
import type {
  CreateMessageResult,
  InputRequiredResult,
  ListRootsResult,
} from "../../protocol/schemas/input-required.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { McpServer } from "../index.js";
import type { InputContext, McpContext } from "./context.js";
import { toElicitationSchema } from "./elicitation-schema.js";
import type { MixedChannels, StaticResourceAsks } from "./handler-rules.js";
import { ask, type ElicitationOutcome, resolver } from "./resolvers/resolvers.js";
import type { StaticResourceRule } from "./resources.js";
import { accept } from "./test-support/answers.js";
import { connectionsClosedAfterEach, WIRES } from "./test-support/connections.js";
import type { ChannelRule } from "./tools.js";

/**
 * A call has one input_required channel: either the resolvers ask, or the handler builds the
 * InputRequiredResult itself. The types refuse the mix where they can see it (each `@ts-expect-error`
 * below fails the typecheck if the refusal ever disappears) and the run time refuses what they cannot.
 */

const Confirm = z.object({ ok: z.boolean() });

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe.each(WIRES)("one channel per call over %s", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("refuses an InputRequiredResult from a resolver tool: a type error, and a tool error at run time (49, 50)", async () => {
    const mcp = new McpServer({ name: "mixed", version: "1.0.0" }, { logger: silentLogger });
    const confirm = resolver(() => ask.elicit("Go?", Confirm));
    // @ts-expect-error a tool with resolvers cannot return an InputRequiredResult (MixedChannels says so)
    mcp.tool("mixed", { resolve: { confirm } }, () => inputRequired({ requestState: "step-2" }));
    const { client } = await connect(mcp, wire, { onElicit: () => accept({ ok: true }) });
    const result = await client.callTool("mixed", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Tool 'mixed' returned an InputRequiredResult but declares resolvers: a call has one input_required channel, so the multi-round flow is driven either by resolvers or by the tool body, not both. Ask the question from a resolver, or drop the resolvers and build the InputRequiredResult by hand",
    );
  });

  it("lets a tool without resolvers build its own InputRequiredResult (49)", async () => {
    const mcp = new McpServer({ name: "manual", version: "1.0.0" });
    mcp.tool("manual", {}, (_args, ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<InputContext>();
      if (ctx.inputResponses === undefined) {
        return inputRequired({ inputRequests: { go: elicitForm("Go?", toElicitationSchema(Confirm)) } });
      }
      return "went";
    });
    const { client } = await connect(mcp, wire, { onElicit: () => accept({ ok: true }) });
    expect(textOf(await client.callTool("manual", {}))).toBe("went");
  });

  it("refuses a static resource that asks: a type error, and an error at run time (48)", async () => {
    const mcp = new McpServer({ name: "docs", version: "1.0.0" });
    // @ts-expect-error a static resource cannot ask for input (StaticResourceAsks says so)
    mcp.resource("readme", { uri: "docs://readme" }, () => inputRequired({ requestState: "x" }));
    mcp.resource("page", { uri: "docs://pages/{slug}" }, ({ slug }, ctx) =>
      ctx.inputResponses === undefined
        ? inputRequired({ inputRequests: { go: elicitForm(`Open ${slug}?`, toElicitationSchema(Confirm)) } })
        : `page ${slug}`,
    );
    const { client } = await connect(mcp, wire, { onElicit: () => accept({ ok: true }) });
    const error = (await client.readResource("docs://readme").catch((caught: unknown) => caught)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.message).toMatch(
      /^Resource 'readme' is static, and static resources cannot return InputRequiredResult/,
    );
    expect((await client.readResource("docs://pages/intro")).contents).toEqual([
      { uri: "docs://pages/intro", text: "page intro" },
    ]);
  });
});

describe("what the types infer from resolvers", () => {
  it("types each injected value from what its resolver returns", async () => {
    const mcp = new McpServer({ name: "typed", version: "1.0.0" });
    const region = resolver(({ args }: { args: { service: string } }) =>
      ask.elicit(`Region for ${args.service}?`, z.object({ region: z.enum(["eu", "us"]) })),
    );
    const confirm = resolver({ region }, ({ region }) => ask.elicit(`Use ${region.region}?`, Confirm), {
      onDecline: "outcome",
    });
    const draft = resolver(() => ask.sample({ messages: [], maxTokens: 5 }));
    const roots = resolver(() => ask.listRoots());
    const count = resolver(async () => 3);
    mcp.tool(
      "typed",
      { input: z.object({ service: z.string() }), resolve: { region, confirm, draft, roots, count } },
      (args, values, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ service: string }>();
        expectTypeOf(values.region).toEqualTypeOf<{ region: "eu" | "us" }>();
        expectTypeOf(values.confirm).toEqualTypeOf<ElicitationOutcome<{ ok: boolean }>>();
        expectTypeOf(values.draft).toEqualTypeOf<CreateMessageResult>();
        expectTypeOf(values.roots).toEqualTypeOf<ListRootsResult>();
        expectTypeOf(values.count).toEqualTypeOf<number>();
        expectTypeOf(ctx).toEqualTypeOf<McpContext>();
        return `${args.service}:${values.region.region}:${values.confirm.action}:${values.draft.model}:${values.roots.roots.length}:${values.count}`;
      },
    );
    // @ts-expect-error the region resolver reads args.service, which this tool does not have
    mcp.tool("unfit", { input: z.object({ name: z.string() }), resolve: { region } }, () => "x");

    const connection = await connectionsFor(mcp);
    try {
      const result = await connection.client.callTool("typed", { service: "api" });
      expect(textOf(result)).toBe("api:eu:accept:m:1:3");
    } finally {
      await connection.close();
    }
  });
});

async function connectionsFor(mcp: McpServer) {
  const { connect } = await import("./test-support/connections.js");
  return connect(mcp, "memory", {
    onElicit: (params) => accept(params.message.startsWith("Region") ? { region: "eu" } : { ok: true }),
    onSample: () => ({ role: "assistant", content: { type: "text", text: "x" }, model: "m" }),
    onListRoots: () => ({ roots: [{ uri: "file:///w" }] }),
  });
}

describe("the channel rule in the types", () => {
  it("is what the compiler reports for a resolver tool returning an InputRequiredResult, and nothing otherwise", () => {
    const confirm = resolver(() => ask.elicit("Go?", Confirm));
    type Resolvers = { confirm: typeof confirm };
    type Asks = () => Promise<InputRequiredResult | string>;
    expectTypeOf<ChannelRule<Resolvers, Asks>>().toEqualTypeOf<MixedChannels>();
    expectTypeOf<ChannelRule<Resolvers, () => string>>().toEqualTypeOf<unknown>();
    expectTypeOf<ChannelRule<Record<never, never>, Asks>>().toEqualTypeOf<unknown>();
    expectTypeOf<MixedChannels>().toEqualTypeOf<"A tool with resolvers asks from its resolvers and cannot return inputRequired(...): ask from a resolver, or drop `resolve` and build the InputRequiredResult by hand">();
  });

  it("is what the compiler reports for a static resource returning an InputRequiredResult, and nothing for a template", () => {
    type Asks = () => InputRequiredResult;
    expectTypeOf<StaticResourceRule<"docs://readme", Asks>>().toEqualTypeOf<StaticResourceAsks>();
    expectTypeOf<StaticResourceRule<"docs://readme", () => string>>().toEqualTypeOf<unknown>();
    expectTypeOf<StaticResourceRule<"docs://pages/{slug}", Asks>>().toEqualTypeOf<unknown>();
    expectTypeOf<StaticResourceAsks>().toEqualTypeOf<"A static resource cannot return inputRequired(...): only a resource template (a URI with {variables}) may ask for input">();
  });
});
