import { callTool } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editsOf, spliced } from "../src/edits.js";
import { Target } from "../src/target.js";

/**
 * Forgery: edited access tokens and edited sealed requestStates, each sent to the reference server
 * as one real process. Nothing edited is accepted, and the genuine value still works afterwards, so
 * the refusals changed nothing.
 */
let target: Target;
let alice: string;
let bob: string;

beforeAll(async () => {
  // Every edit comes from one address: the per-address limit would soon answer 429 instead of the
  // verdict this suite is about (that limit has its own test in the reference server's suite).
  target = await Target.start({ env: { RATE_LIMIT_ADDRESS_MAX: "10000000", RATE_LIMIT_MAX: "1000000" } });
  alice = await target.token("alice");
  bob = await target.token("bob");
}, 240_000);

afterAll(async () => {
  await target?.close();
});

const CREATE = { arguments: { name: "ledger" }, capabilities: { elicitation: { form: {} } } };

/** The first round of create_service: the sealed state the next round must echo. */
async function firstRound(token: string): Promise<{ requestState: string }> {
  const reply = await callTool(target.instance.url, "create_service", { token, ...CREATE });
  const result = reply.body?.result as { resultType?: string; requestState?: string } | undefined;
  expect(result?.resultType).toBe("input_required");
  if (result?.requestState === undefined) throw new Error("the first round carried no requestState");
  target.secrets.remember("sealed requestState", result.requestState);
  return { requestState: result.requestState };
}

const RUNTIME = { runtime: { action: "accept", content: { runtime: "node22" } } };

function frozenRefusal(body: Record<string, unknown> | undefined) {
  expect(body?.error).toMatchObject({
    code: -32602,
    message: "Invalid or expired requestState",
    data: { reason: "invalid_request_state" },
  });
}

describe("forged credentials", () => {
  it("accepts no edit of a real access token, nor a token spliced from two users'", async () => {
    const forged = [...editsOf(alice, 600, 20261206), spliced(alice, bob), spliced(bob, alice)];
    const accepted: string[] = [];
    for (const token of forged) {
      const reply = await callTool(target.instance.url, "create_service", { token, ...CREATE });
      // 401 for a token that does not verify, 400 for one that is not even token syntax (RFC 6750).
      if (reply.status !== 401 && reply.status !== 400) accepted.push(`HTTP ${reply.status}`);
    }
    expect(accepted).toEqual([]);
    const genuine = await callTool(target.instance.url, "create_service", { token: alice, ...CREATE });
    expect(genuine.status).toBe(200);
    expect(await target.alive()).toBe(true);
  });

  it("accepts no edit of a sealed requestState, nor alice's state under bob's token", async () => {
    const { requestState } = await firstRound(alice);
    const refusedAll = async (states: string[], token: string) => {
      for (const state of states) {
        const reply = await callTool(target.instance.url, "create_service", {
          token,
          ...CREATE,
          retry: { requestState: state, inputResponses: RUNTIME },
        });
        expect(reply.status).toBe(200);
        frozenRefusal(reply.body);
      }
    };
    await refusedAll(editsOf(requestState, 300, 7), alice);
    await refusedAll([requestState], bob);

    // The genuine state still moves the flow on: the refusals consumed nothing.
    const next = await callTool(target.instance.url, "create_service", {
      token: alice,
      ...CREATE,
      retry: { requestState, inputResponses: RUNTIME },
    });
    expect(next.body?.result).toMatchObject({ resultType: "input_required" });
    expect(JSON.stringify(next.body)).toContain("Which size");
  });

  it("leaves no token or sealed state in any line the server logged while refusing them", () => {
    expect(target.secrets.size).toBeGreaterThanOrEqual(3);
    expect(target.secrets.leaksIn(target.log())).toEqual([]);
  });
});
