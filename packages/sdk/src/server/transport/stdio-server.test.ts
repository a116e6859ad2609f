import { afterEach, describe, expect, it } from "vitest";
import { META } from "../../protocol/versions.js";
import { fixtureServer } from "../../test-support/fixture-server.js";
import { deferred, recordingLogger } from "../../test-support/in-process.js";
import { rpcNotification, rpcRequest } from "../../test-support/messages.js";
import { StdioPeer } from "../../test-support/stdio.js";
import { Server } from "../index.js";

let peer: StdioPeer | undefined;

afterEach(async () => {
  if (!peer) return;
  peer.assertClean();
  peer.input.end();
  await peer.done;
  peer = undefined;
});

function open(server: Server): StdioPeer {
  peer = new StdioPeer(server);
  return peer;
}

describe("stdio: requests", () => {
  it("answers each request on its own line with a valid response", async () => {
    const p = open(fixtureServer().server);
    const request = rpcRequest("server/discover", {}, { id: "d-1" });
    p.send(request);
    expect(await p.next()).toMatchObject({ jsonrpc: "2.0", id: "d-1", result: { resultType: "complete" } });
    p.send(rpcRequest("tools/call", { name: "echo", arguments: { text: "hi" } }, { id: 2 }));
    expect(await p.next()).toMatchObject({
      id: 2,
      result: { content: [{ type: "text", text: '{"text":"hi"}' }] },
    });
  });

  it("serves requests concurrently: a later request can answer first", async () => {
    const secondDone = deferred();
    const server = new Server({ name: "c", version: "1" }, { logger: recordingLogger() }).onCallTool(
      async (_ctx, params) => {
        if (params.name === "first") await secondDone.promise;
        else secondDone.resolve();
        return { content: [{ type: "text", text: params.name }] };
      },
    );
    const p = open(server);
    p.send(rpcRequest("tools/call", { name: "first" }, { id: 1 }));
    p.send(rpcRequest("tools/call", { name: "second" }, { id: 2 }));
    expect(await p.next()).toMatchObject({ id: 2, result: { content: [{ text: "second" }] } });
    expect(await p.next()).toMatchObject({ id: 1, result: { content: [{ text: "first" }] } });
  });

  it("carries each request's envelope alone: capabilities do not leak between interleaved requests", async () => {
    const p = open(fixtureServer().server);
    p.send(rpcRequest("tools/call", { name: "ask" }, { id: "with", capabilities: { elicitation: {} } }));
    expect(await p.next()).toMatchObject({ id: "with", result: { resultType: "input_required" } });
    p.send(rpcRequest("tools/call", { name: "ask" }, { id: "without" }));
    expect(await p.next()).toMatchObject({ id: "without", error: { code: -32021 } });
  });

  it("sends progress and log notifications before the response", async () => {
    const p = open(fixtureServer().server);
    p.send(rpcRequest("tools/call", { name: "chatty" }, { id: 5, progressToken: "pt", logLevel: "error" }));
    const methods: string[] = [];
    for (;;) {
      const message = (await p.next()) as { id?: unknown; method?: string };
      if (message.id === 5) break;
      methods.push(String(message.method));
    }
    expect(methods).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
    ]);
  });
});

describe("stdio: cancellation", () => {
  it("aborts the request named by notifications/cancelled and never answers it", async () => {
    const fixture = fixtureServer();
    const p = open(fixture.server);
    p.send(rpcRequest("tools/call", { name: "slow" }, { id: 10 }));
    const signal = await fixture.slowCalls.next();
    p.send(rpcNotification("notifications/cancelled", { requestId: 10, reason: "user pressed stop" }));
    expect(await fixture.slowAborted.next()).toBe("10");
    expect(signal.aborted).toBe(true);
    p.send(rpcRequest("server/discover", {}, { id: 11 }));
    expect(await p.next()).toMatchObject({ id: 11 });
    await p.end();
    expect(await p.rest()).toEqual([]);
  });

  it("ignores a cancellation for an unknown id, one with bad params, and other notifications", async () => {
    const fixture = fixtureServer();
    const p = open(fixture.server);
    p.send(rpcRequest("tools/call", { name: "slow" }, { id: "keep" }));
    const signal = await fixture.slowCalls.next();
    p.send(rpcNotification("notifications/cancelled", { requestId: "other" }));
    p.send(rpcNotification("notifications/cancelled", { reason: "no id" }));
    p.send(rpcNotification("notifications/cancelled", { requestId: "KEEP" }));
    p.send(rpcNotification("notifications/initialized"));
    p.send(rpcRequest("server/discover", {}, { id: "probe" }));
    expect(await p.next()).toMatchObject({ id: "probe" });
    expect(signal.aborted).toBe(false);
    p.send(rpcNotification("notifications/cancelled", { requestId: "keep" }));
    expect(await fixture.slowAborted.next()).toBe("keep");
  });
});

describe("stdio: malformed input", () => {
  it("answers a line that is not JSON with -32700 and keeps serving", async () => {
    const p = open(fixtureServer().server);
    p.send("{this is not json");
    expect(await p.next()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error: each line must be one JSON-RPC message" },
    });
    p.send(rpcRequest("tools/list", {}, { id: 1 }));
    expect(await p.next()).toMatchObject({ id: 1, result: { resultType: "complete" } });
  });

  it("answers batches, responses and non-objects with -32600, with the id when it can be read", async () => {
    const p = open(fixtureServer().server);
    p.send(JSON.stringify([rpcRequest("tools/list")]));
    expect(await p.next()).toMatchObject({ error: { code: -32600 } });
    p.send({ jsonrpc: "2.0", id: 8, result: { resultType: "complete" } });
    expect(await p.next()).toMatchObject({ id: 8, error: { code: -32600 } });
    p.send("42");
    expect(await p.next()).toMatchObject({ error: { code: -32600 } });
    p.send({ jsonrpc: "2.0", id: 1.25, method: "tools/list" });
    const bad = (await p.next()) as Record<string, unknown>;
    expect(bad).toMatchObject({ error: { code: -32600 } });
    expect(bad).not.toHaveProperty("id");
  });

  it("skips blank lines", async () => {
    const p = open(fixtureServer().server);
    p.send("");
    p.send("   ");
    p.send(rpcRequest("tools/list", {}, { id: "after-blank" }));
    expect(await p.next()).toMatchObject({ id: "after-blank" });
  });

  it("answers an envelope error with -32602 and an old version with -32022 when the legacy era is off", async () => {
    const p = open(fixtureServer({ legacy: false }).server);
    p.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(await p.next()).toMatchObject({ id: 1, error: { code: -32602 } });
    p.send(rpcRequest("tools/list", {}, { id: 2, protocolVersion: "2025-03-26" }));
    expect(await p.next()).toMatchObject({
      id: 2,
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2025-03-26" } },
    });
    p.send({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "2025-11-25" } });
    expect(await p.next()).toMatchObject({ id: 3, error: { code: -32022 } });
  });
});

describe("stdio: U+2028 and U+2029 inside a message", () => {
  const text = "line\u2028separator\u2029paragraph é";

  /** The byte offsets that cut inside U+2028 (3 bytes) and U+2029 and between a closing \r and \n. */
  function awkwardCuts(message: unknown): number[] {
    const bytes = Buffer.from(`${JSON.stringify(message)}\r\n`);
    const inside = (char: string) => bytes.indexOf(Buffer.from(char)) + 1;
    return [inside("\u2028"), inside("\u2029") + 1, bytes.length - 1];
  }

  it("reads a line holding them raw as one message, in chunks cut inside them and inside \\r\\n", async () => {
    const p = open(fixtureServer().server);
    const request = rpcRequest("tools/call", { name: "echo", arguments: { text } }, { id: "raw-in" });
    p.sendInPieces(request, awkwardCuts(request), "\r\n");
    expect(await p.next()).toMatchObject({
      id: "raw-in",
      result: { content: [{ type: "text", text: JSON.stringify({ text }) }] },
    });
  });

  it("writes them escaped, so a reader that also ends lines at them gets the whole message", async () => {
    const p = open(fixtureServer().server);
    p.send(rpcRequest("tools/call", { name: "echo", arguments: { text } }, { id: "escaped-out" }));
    expect(await p.next()).toMatchObject({ id: "escaped-out" });
    const written = p.written();
    expect(written).not.toMatch(/[\u2028\u2029]/);
    expect(written).toContain("line\\u2028separator\\u2029paragraph é");
    expect(written.split("\n")).toHaveLength(2);
  });
});

describe("stdio: end of input", () => {
  it("resolves when the input ends, after in-flight requests have answered", async () => {
    const release = deferred();
    const started = deferred();
    const server = new Server({ name: "e", version: "1" }, { logger: recordingLogger() }).onCallTool(
      async () => {
        started.resolve();
        await release.promise;
        return { content: [{ type: "text", text: "finished" }] };
      },
    );
    const p = open(server);
    let settled = false;
    void p.done.then(() => {
      settled = true;
    });
    p.send(rpcRequest("subscriptions/listen", { notifications: {} }, { id: "marker" }));
    expect(await p.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    p.send(rpcRequest("tools/call", { name: "t" }, { id: "in-flight" }));
    await started.promise;
    p.input.end();
    // The subscription's result shows the input loop has ended and closed the server.
    expect(await p.next()).toMatchObject({ id: "marker", result: { resultType: "complete" } });
    expect(settled).toBe(false);
    release.resolve();
    await p.end();
    expect(settled).toBe(true);
    expect(await p.rest()).toMatchObject([{ id: "in-flight", result: { content: [{ text: "finished" }] } }]);
  });

  it("ends open subscriptions with their result when the input ends", async () => {
    const { server } = fixtureServer();
    const p = open(server);
    p.send(rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "L" }));
    expect(await p.next()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [META.subscriptionId]: "L" } },
    });
    await p.end();
    expect(await p.rest()).toMatchObject([
      { id: "L", result: { resultType: "complete", _meta: { [META.subscriptionId]: "L" } } },
    ]);
  });
});

describe("stdio: subscriptions/listen", () => {
  it("demultiplexes two subscriptions on one channel by subscription id", async () => {
    const { server } = fixtureServer();
    const p = open(server);
    p.send(rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "a" }));
    expect(await p.next()).toMatchObject({ params: { _meta: { [META.subscriptionId]: "a" } } });
    p.send(
      rpcRequest(
        "subscriptions/listen",
        { notifications: { resourceSubscriptions: ["file:///notes/a.txt"] } },
        { id: "b" },
      ),
    );
    expect(await p.next()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { resourceSubscriptions: ["file:///notes/a.txt"] },
        _meta: { [META.subscriptionId]: "b" },
      },
    });
    server.notifyResourceUpdated("file:///notes/a.txt");
    server.notifyToolsListChanged();
    expect(await p.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "file:///notes/a.txt", _meta: { [META.subscriptionId]: "b" } },
    });
    expect(await p.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "a" } },
    });
    p.send(rpcNotification("notifications/cancelled", { requestId: "a" }));
    p.send(rpcRequest("server/discover", {}, { id: "after-cancel" }));
    expect(await p.next()).toMatchObject({ id: "after-cancel" });
    server.notifyToolsListChanged();
    server.notifyResourceUpdated("file:///notes/a.txt");
    expect(await p.next()).toMatchObject({ method: "notifications/resources/updated" });
    await p.end();
    expect(await p.rest()).toMatchObject([{ id: "b", result: { resultType: "complete" } }]);
  });
});
