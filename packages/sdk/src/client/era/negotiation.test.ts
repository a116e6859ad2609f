import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "../../protocol/errors.js";
import { silentLogger } from "../../protocol/logger.js";
import { Client } from "../client.js";
import { ProtocolViolationError, VersionNegotiationError } from "../errors.js";
import { discoverResult, type HttpPeer, json, serveScripted } from "../test-support/http-peer.js";
import { HttpStatusError } from "../transport/http-errors.js";
import { isLegacyAnswer, isModernAnswer } from "./negotiation.js";

const status = (code: number) => new HttpStatusError(code, "", new Headers(), "", "http://x/");

describe("reading a failed probe", () => {
  it("takes JSON-RPC errors, 2025-only version errors, refusals and non-discover results as 2025-era", () => {
    expect(isLegacyAnswer(new McpError(-32601, "Method not found"))).toBe(true);
    expect(isLegacyAnswer(new McpError(-32000, "Bad Request: Server not initialized"))).toBe(true);
    expect(isLegacyAnswer(new McpError(-32022, "Unsupported", { supported: ["2025-06-18"] }))).toBe(true);
    expect(isLegacyAnswer(new VersionNegotiationError(["2025-11-25"], ["2026-07-28"]))).toBe(true);
    expect(isLegacyAnswer(new ProtocolViolationError("server/discover", "no supportedVersions"))).toBe(true);
    for (const code of [200, 400, 404, 405]) expect(isLegacyAnswer(status(code))).toBe(true);
  });

  it("leaves credentials, server failures, network errors and modern version errors alone", () => {
    for (const code of [401, 403, 500, 503]) expect(isLegacyAnswer(status(code))).toBe(false);
    expect(isLegacyAnswer(new TypeError("fetch failed"))).toBe(false);
    expect(isLegacyAnswer(new McpError(-32022, "Unsupported", { supported: ["2026-07-28"] }))).toBe(false);
    expect(isLegacyAnswer(new VersionNegotiationError(["2027-01-01"], ["2026-07-28"]))).toBe(false);
  });

  it("reads a refused initialize as 2026-07-28 only when it names a modern version", () => {
    expect(isModernAnswer(new VersionNegotiationError(["2026-07-28"], []))).toBe(true);
    expect(isModernAnswer(new VersionNegotiationError(["2024-11-05"], []))).toBe(false);
    expect(isModernAnswer(new McpError(-32601, "Method not found"))).toBe(false);
  });
});

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

/** A 2026-07-28-only server: discover works, initialize gets the version error naming its version. */
async function modernOnly(): Promise<HttpPeer> {
  const peer = await serveScripted(({ body }, res) => {
    if (body.method === "initialize") {
      return json(res, 400, {
        jsonrpc: "2.0",
        id: body.id,
        error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } },
      });
    }
    if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
    return json(res, 200, {
      jsonrpc: "2.0",
      id: body.id,
      result: { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "private" },
    });
  });
  peers.push(peer);
  return peer;
}

describe("negotiating with a 2026-07-28-only server", () => {
  it("auto probes and stays modern: no initialize is sent", async () => {
    const peer = await modernOnly();
    const client = new Client(peer.url, { logger: silentLogger });
    await client.listTools();
    expect(client.era).toBe("modern");
    expect(peer.seen.map((seen) => seen.body.method)).toEqual(["server/discover", "tools/list"]);
  });

  it("wrong prior knowledge of the 2025 era falls back to server/discover", async () => {
    const peer = await modernOnly();
    const client = new Client(peer.url, { knownEra: "legacy", logger: silentLogger });
    await client.listTools();
    expect(client.era).toBe("modern");
    expect(client.serverInfo?.name).toBe("scripted");
    expect(peer.seen.map((seen) => seen.body.method)).toEqual([
      "initialize",
      "server/discover",
      "tools/list",
    ]);
  });

  it("prior knowledge of 2026-07-28 sends no probe at all", async () => {
    const peer = await modernOnly();
    const client = new Client(peer.url, { knownEra: "modern", logger: silentLogger });
    await client.listTools();
    expect(client.era).toBe("modern");
    expect(peer.seen.map((seen) => seen.body.method)).toEqual(["tools/list"]);
  });

  it("pinned to the 2025 era, it names the server's versions and says to use auto", async () => {
    const peer = await modernOnly();
    const error = await new Client(peer.url, { era: "legacy", logger: silentLogger })
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionNegotiationError);
    expect((error as Error).message).toMatch(
      /speaks protocol versions 2026-07-28 and this client speaks 2025-11-25, 2025-06-18, 2025-03-26.*pinned to era "legacy".*use era "auto"/,
    );
  });

  it("refuses contradicting era options before sending anything", () => {
    expect(() => new Client("http://127.0.0.1:1/mcp", { era: "modern", knownEra: "legacy" })).toThrow(
      /contradict each other/,
    );
  });
});
