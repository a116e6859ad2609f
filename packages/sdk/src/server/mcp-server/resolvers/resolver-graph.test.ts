import { describe, expect, it } from "vitest";
import * as z from "zod";
import { buildResolverGraph } from "./resolver-graph.js";
import { type AnyResolver, ask, type Resolver, resolver } from "./resolvers.js";

const Pick = z.object({ id: z.string() });

describe("buildResolverGraph", () => {
  it("orders dependencies before dependants, in declaration order", () => {
    const region = resolver(() => ask.elicit("Region?", Pick));
    const account = resolver(() => ask.elicit("Account?", Pick));
    const plan = resolver({ region, account }, () => "plan");
    const graph = buildResolverGraph("deploy", { plan, extra: resolver(() => 1) });
    expect([...graph.order.keys()]).toEqual(["region", "account", "plan", "extra"]);
    expect(graph.top.map(([name]) => name)).toEqual(["plan", "extra"]);
    expect(graph.nodes.get(plan)?.deps.map(([name]) => name)).toEqual(["region", "account"]);
  });

  it("names a resolver by its key in the tool's map, even where a dependant calls it otherwise", () => {
    const account = resolver(() => ask.elicit("Account?", Pick));
    const greeting = resolver({ who: account }, () => "hi");
    const graph = buildResolverGraph("hi", { greeting, account });
    expect(graph.nodes.get(account)?.name).toBe("account");
    expect([...graph.order.keys()]).toEqual(["account", "greeting"]);
  });

  it("visits a shared dependency once", () => {
    const shared = resolver(() => 1);
    const left = resolver({ shared }, () => 2);
    const right = resolver({ shared }, () => 3);
    const graph = buildResolverGraph("t", { left, right });
    expect([...graph.order.keys()]).toEqual(["shared", "left", "right"]);
    expect(graph.nodes.size).toBe(3);
  });

  it("refuses one name for two resolvers, a cycle, and values that are not resolvers", () => {
    const first = resolver(() => 1);
    const both = resolver({ path: resolver(() => 2) }, () => 3);
    expect(() => buildResolverGraph("clash", { path: first, both })).toThrow(
      "Tool 'clash' reaches two different resolvers named 'path'; names are the keys of the questions on the wire, so give one of them another name",
    );
    const deps: Record<string, AnyResolver> = {};
    // resolver() freezes what it makes, so a cycle can only be built by hand.
    const a: Resolver<number> = { deps, run: () => 1, onDecline: "error" };
    deps.b = { deps: { a }, run: () => 2, onDecline: "error" } as Resolver<number>;
    expect(() => buildResolverGraph("cycle", { a })).toThrow(
      "Tool 'cycle': resolver 'a' has a cyclic dependency",
    );
    expect(() => buildResolverGraph("bad", { oops: (() => 1) as never })).toThrow(
      "Tool 'bad': resolve.oops is not a resolver; create it with resolver(...)",
    );
    const broken: Resolver<number> = { deps: { inner: {} as never }, run: () => 1, onDecline: "error" };
    expect(() => buildResolverGraph("bad", { outer: broken })).toThrow(
      "Tool 'bad': dependency 'inner' of 'outer' is not a resolver",
    );
  });
});
