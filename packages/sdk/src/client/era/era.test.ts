import { describe, expect, it } from "vitest";
import type { Envelope } from "../request/envelope.js";
import { legacyEra } from "./legacy.js";
import { modernEra } from "./modern.js";

const envelope: Envelope = {
  extra: undefined,
  progressToken: undefined,
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "c", version: "1" },
  logLevel: undefined,
};
const server = { where: () => "http://x/", protocolVersion: "2025-11-25" };

describe("the 2025 era", () => {
  it("sends params without the envelope, which the session holds", () => {
    expect(legacyEra().wireParams({ name: "t" }, envelope)).toEqual({ name: "t" });
    expect(legacyEra().wireParams({}, { ...envelope, progressToken: "p" })).toEqual({
      _meta: { progressToken: "p" },
    });
  });

  it("refuses round fields and listen streams, naming the server and its version", () => {
    expect(() => legacyEra().refuseRoundFields("tools/call", { requestState: "s" }, server)).toThrow(
      /http:\/\/x\/ speaks the 2025 era \(2025-11-25\)/,
    );
    expect(() => legacyEra().refuseRoundFields("tools/call", {}, server)).not.toThrow();
    expect(() => legacyEra().refuseListen(server)).toThrow(/no subscriptions\/listen/);
  });

  it("reads a result as complete, without the modern-only fields", () => {
    expect(legacyEra().result("tools/list", { tools: [], resultType: "complete" })).toEqual({ tools: [] });
    expect(() => legacyEra().result("tools/call", { resultType: "input_required" })).toThrow(/mixes/);
  });
});

describe("the 2026-07-28 era", () => {
  it("puts the envelope on every request and accepts what the 2025 era refuses", () => {
    const params = modernEra().wireParams({ name: "t" }, envelope);
    expect(params._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": "2025-11-25" });
    expect(() => modernEra().refuseRoundFields("tools/call", { requestState: "s" }, server)).not.toThrow();
    expect(() => modernEra().refuseListen(server)).not.toThrow();
  });

  it("answers no server requests", async () => {
    const response = await modernEra().answer(
      { jsonrpc: "2.0", id: 7, method: "roots/list" },
      {},
      undefined as never,
    );
    expect(response).toMatchObject({ id: 7, error: { code: -32601 } });
  });
});
