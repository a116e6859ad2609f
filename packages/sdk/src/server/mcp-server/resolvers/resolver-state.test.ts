import { describe, expect, it } from "vitest";
import { createMessage, elicitForm, listRoots } from "../../../protocol/input-required.js";
import { decodeResolverState, encodeResolverState, questionDigest } from "./resolver-state.js";

const form = { type: "object" as const, properties: { name: { type: "string" as const } } };

describe("resolver state", () => {
  it("round-trips outcomes and asked digests as version 3", () => {
    const state = {
      outcomes: { login: { action: "accept" as const, data: { name: "octocat" }, q: "abc" } },
      asked: { confirm: "def" },
    };
    const text = encodeResolverState(state);
    expect(JSON.parse(text)).toEqual({ v: 3, ...state });
    expect(decodeResolverState(text)).toEqual(state);
  });

  it("reads anything else as no progress, never as an error", () => {
    const empty = { outcomes: {}, asked: {} };
    expect(decodeResolverState(undefined)).toEqual(empty);
    expect(decodeResolverState("not json")).toEqual(empty);
    expect(decodeResolverState('{"v":1,"outcomes":{"a":{"action":"accept","data":1,"q":"x"}}}')).toEqual(
      empty,
    );
    expect(decodeResolverState("[3]")).toEqual(empty);
    expect(decodeResolverState('{"v":3,"outcomes":[],"asked":"x"}')).toEqual(empty);
  });

  it("drops entries without a digest or with an unknown action", () => {
    const decoded = decodeResolverState(
      JSON.stringify({
        v: 3,
        outcomes: {
          noDigest: { action: "accept", data: 1 },
          badAction: { action: "maybe", data: 1, q: "x" },
          kept: { action: "decline", q: "y" },
        },
        asked: { a: "q1", b: 7 },
      }),
    );
    expect(decoded).toEqual({
      outcomes: { kept: { action: "decline", data: null, q: "y" } },
      asked: { a: "q1" },
    });
  });

  it("digests the question shown: 22 base64url characters that change with message or schema", () => {
    const digest = questionDigest(elicitForm("Username?", form));
    expect(digest).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(questionDigest(elicitForm("Username?", form))).toBe(digest);
    expect(questionDigest(elicitForm("Your username?", form))).not.toBe(digest);
    expect(
      questionDigest(elicitForm("Username?", { ...form, properties: { login: { type: "string" } } })),
    ).not.toBe(digest);
    expect(questionDigest(listRoots())).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(questionDigest(createMessage({ messages: [], maxTokens: 5 }))).not.toBe(
      questionDigest(createMessage({ messages: [], maxTokens: 6 })),
    );
  });
});
