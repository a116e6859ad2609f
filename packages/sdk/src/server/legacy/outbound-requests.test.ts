import { describe, expect, it } from "vitest";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { askingInstanceOf, newAskingInstance } from "./legacy-question.js";
import { OutboundRequests } from "./outbound-requests.js";

const never = new AbortController().signal;

function ask(table: OutboundRequests): { id: string; answer: Promise<unknown> } {
  let sent: JsonRpcRequest | undefined;
  const answer = table.request(
    "elicitation/create",
    undefined,
    (request) => {
      sent = request;
    },
    never,
    () => {},
  );
  if (typeof sent?.id !== "string") throw new Error(`expected a string id, got ${JSON.stringify(sent)}`);
  return { id: sent.id, answer };
}

describe("OutboundRequests", () => {
  it("mints ids no other instance or session mints, unguessable, each naming the instance that asked", () => {
    const instance = newAskingInstance();
    const first = new OutboundRequests(instance);
    const second = new OutboundRequests(instance);
    const elsewhere = new OutboundRequests(newAskingInstance());
    const ids = [ask(first).id, ask(first).id, ask(second).id, ask(elsewhere).id];
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{22}$/);
    expect(ids.map(askingInstanceOf)).toEqual([instance, instance, instance, elsewhere.instance]);
    expect(askingInstanceOf("s1")).toBeUndefined();
    expect(askingInstanceOf(1)).toBeUndefined();
  });

  it("settles only its own question: another table's id changes nothing", async () => {
    const instance = newAskingInstance();
    const mine = new OutboundRequests(instance);
    const theirs = new OutboundRequests(instance);
    const asked = ask(mine);
    const other = ask(theirs);
    expect(theirs.settle(asked.id, { result: { action: "decline" } })).toBe(false);
    expect([mine.size, theirs.size]).toEqual([1, 1]);
    expect(mine.settle(asked.id, { result: { action: "accept" } })).toBe(true);
    await expect(asked.answer).resolves.toEqual({ result: { action: "accept" } });
    theirs.cancelAll();
    await expect(other.answer).rejects.toThrow(/the session ended/);
  });
});
