import { InvalidRequestState, RequestStateSecurity } from "@roundtrip/sealing";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { handle } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import { McpServer } from "./mcp-server/mcp-server.js";
import { ask, resolver } from "./mcp-server/resolvers/resolvers.js";
import { openSecurity } from "./mcp-server/test-support/open-codec.js";
import { onceLayer, resolverLayer, sealedLayer } from "./request-state-layers.js";

const CALL = { method: "tools/call", target: "deploy", arguments: { env: "prod" } };
const CONTEXT = { audience: "layers" };

/** A once-tool with a resolver: all three layers, as a client holds them after the first round. */
async function firstRoundToken(security: RequestStateSecurity): Promise<string> {
  const mcp = new McpServer({ name: "layers", version: "1.0.0" }, { requestStateSecurity: security });
  const confirm = resolver(() => ask.elicit("Deploy?", z.object({ ok: z.boolean() })));
  mcp.tool(
    "deploy",
    { input: z.object({ env: z.string() }), once: true, resolve: { confirm } },
    (_args, { confirm }) => (confirm.ok ? "deployed" : "kept"),
  );
  const request = rpcRequest(
    "tools/call",
    { name: "deploy", arguments: { env: "prod" } },
    { capabilities: { elicitation: { form: {} } } },
  );
  const handled = await handle(mcp.server, request);
  const result = (handled.message as { result?: { resultType?: string; requestState?: unknown } }).result;
  expect(result?.resultType).toBe("input_required");
  if (typeof result?.requestState !== "string") throw new Error("the first round minted no state");
  return result.requestState;
}

describe("the layers of a server's requestState", () => {
  it("come off a real server's token outermost first: open, then once, then resolver", async () => {
    const security = openSecurity();
    const token = await firstRoundToken(security);

    const { state: plaintext } = sealedLayer.open(security, token, CALL, CONTEXT);
    expect(plaintext.startsWith('{"once":1,')).toBe(true);
    const envelope = onceLayer.read(plaintext);
    expect(envelope).toMatchObject({ f: expect.any(String), r: expect.any(String), t: expect.any(Number) });
    expect(envelope?.s?.startsWith('{"v":3,')).toBe(true);
    const state = resolverLayer.read(envelope?.s);
    expect(state.outcomes).toEqual({});
    expect(Object.keys(state.asked)).toEqual(["confirm"]);
  });

  it("go on innermost first, and come back off in the opposite order unchanged", () => {
    const security = RequestStateSecurity.ephemeral();
    const state = {
      outcomes: { confirm: { action: "accept" as const, data: { content: { ok: true } }, q: "q-digest" } },
      asked: { region: "r-digest" },
    };
    const envelope = { f: "flow", r: "round", t: 1_782_345_600, s: resolverLayer.write(state) };
    const token = sealedLayer.seal(security, onceLayer.write(envelope), CALL, CONTEXT);

    const opened = onceLayer.read(sealedLayer.open(security, token, CALL, CONTEXT).state);
    expect(opened).toEqual(envelope);
    expect(resolverLayer.read(opened?.s)).toEqual(state);
  });

  it("do not read out of order: each inner format is opaque to the layers around it", () => {
    const security = RequestStateSecurity.ephemeral();
    const resolverState = resolverLayer.write({ outcomes: {}, asked: { confirm: "q" } });
    // A resolver state where the once envelope belongs is no envelope, and the other way round.
    expect(onceLayer.read(resolverState)).toBeUndefined();
    const envelope = onceLayer.write({ f: "flow", r: "round", t: 1, s: resolverState });
    expect(resolverLayer.read(envelope)).toEqual({ outcomes: {}, asked: {} });
    // Plaintext where a token belongs is refused by the sealed layer.
    expect(() => sealedLayer.open(security, envelope, CALL, CONTEXT)).toThrow(InvalidRequestState);
  });
});
