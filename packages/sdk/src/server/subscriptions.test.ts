import { describe, expect, it } from "vitest";
import { META } from "../protocol/versions.js";
import { errorOf, handle, recordingLogger, resultOf, start } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import { Server } from "./index.js";
import { honouredFilter } from "./subscriptions.js";

const INFO = { name: "subs", version: "1" };

function toolsAndResources(): Server {
  return new Server(INFO, { logger: recordingLogger() })
    .onListTools(() => ({ tools: [] }))
    .onListResources(() => ({ resources: [] }))
    .onReadResource((_ctx, p) => ({ contents: [{ uri: p.uri, text: "" }] }));
}

describe("honouredFilter", () => {
  it("keeps only what the server advertises", () => {
    expect(
      honouredFilter(
        {
          toolsListChanged: true,
          promptsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ["file:///a"],
        },
        { tools: { listChanged: true }, resources: { subscribe: true } },
      ),
    ).toEqual({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
  });

  it("drops flags that are false", () => {
    expect(honouredFilter({ toolsListChanged: false }, { tools: { listChanged: true } })).toEqual({});
  });
});

describe("subscriptions/listen", () => {
  it("acknowledges first with the honoured subset, tagged with the listen request's id", async () => {
    const server = toolsAndResources();
    const listen = start(
      server,
      rpcRequest(
        "subscriptions/listen",
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ["file:///watched"],
          },
        },
        { id: "sub-1" },
      ),
    );
    expect(await listen.notifications.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///watched"] },
        _meta: { [META.subscriptionId]: "sub-1" },
      },
    });
    server.close();
    const done = await listen.done;
    expect(resultOf(done)).toEqual({
      resultType: "complete",
      _meta: { [META.subscriptionId]: "sub-1", [META.serverInfo]: INFO },
    });
  });

  it("delivers only the requested and honoured notifications, each tagged", async () => {
    const server = toolsAndResources();
    const listen = start(
      server,
      rpcRequest(
        "subscriptions/listen",
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ["file:///a"],
          },
        },
        { id: 41 },
      ),
    );
    await listen.notifications.next();
    server.notifyPromptsListChanged();
    server.notifyResourcesListChanged();
    server.notifyResourceUpdated("file:///b");
    server.notifyToolsListChanged();
    server.notifyResourceUpdated("file:///a");
    expect(await listen.notifications.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: 41 } },
    });
    expect(await listen.notifications.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "file:///a", _meta: { [META.subscriptionId]: 41 } },
    });
    server.close();
    const done = await listen.done;
    expect(done.notifications.map((n) => n.method)).toEqual([
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
      "notifications/resources/updated",
    ]);
  });

  it("keeps concurrent subscriptions apart", async () => {
    const server = toolsAndResources();
    const tools = start(
      server,
      rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "t" }),
    );
    const res = start(
      server,
      rpcRequest("subscriptions/listen", { notifications: { resourcesListChanged: true } }, { id: "r" }),
    );
    await tools.notifications.next();
    await res.notifications.next();
    server.notifyResourcesListChanged();
    server.notifyToolsListChanged();
    expect((await tools.notifications.next()).params?._meta).toEqual({ [META.subscriptionId]: "t" });
    expect(await res.notifications.next()).toMatchObject({
      method: "notifications/resources/list_changed",
      params: { _meta: { [META.subscriptionId]: "r" } },
    });
    server.close();
    expect((await tools.done).notifications).toHaveLength(2);
    expect((await res.done).notifications).toHaveLength(2);
  });

  it("ends a subscription when its request is aborted, and sends it nothing more", async () => {
    const server = toolsAndResources();
    const controller = new AbortController();
    const other = start(
      server,
      rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }),
    );
    const listen = start(
      server,
      rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "gone" }),
      { signal: controller.signal },
    );
    await other.notifications.next();
    await listen.notifications.next();
    controller.abort();
    const ended = await listen.done;
    server.notifyToolsListChanged();
    await other.notifications.next();
    expect(ended.notifications).toHaveLength(1);
    expect(listen.notifications.unread).toEqual([]);
    server.close();
    await other.done;
  });

  it("refuses a listen request without a filter with -32602", async () => {
    const handled = await handle(toolsAndResources(), rpcRequest("subscriptions/listen"));
    expect(errorOf(handled).code).toBe(-32602);
  });
});
