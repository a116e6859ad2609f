import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpServer } from "../index.js";
import { ask, resolver } from "./resolvers/resolvers.js";
import { connectionsClosedAfterEach, WIRES } from "./test-support/connections.js";
import { openSecurity } from "./test-support/open-codec.js";

/** A form the protocol cannot carry: one of its fields is itself an object. */
const Nested = z.object({ owner: z.object({ name: z.string() }) });

describe("a form that can never be asked", () => {
  it("is refused where ask.elicit is called, naming the field and the rule", () => {
    expect(() => ask.elicit("Who owns it?", Nested)).toThrow(
      /ask\.elicit\("Who owns it\?"\) cannot be asked as a form: .*owner/,
    );
  });

  describe.each(WIRES)("over %s", (wire) => {
    const connect = connectionsClosedAfterEach();

    it("reaches the caller as the tool's error result, with the reason", async () => {
      const mcp = new McpServer(
        { name: "forms", version: "1.0.0" },
        { requestStateSecurity: openSecurity() },
      );
      const owner = resolver(() => ask.elicit("Who owns it?", Nested));
      mcp.tool("claim", { resolve: { owner } }, () => "claimed");
      const { client } = await connect(mcp, wire, {});
      const result = await client.callTool("claim", {});
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/cannot be asked as a form: .*owner/);
    });
  });
});
