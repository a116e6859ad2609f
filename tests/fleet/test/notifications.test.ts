import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LATEST_PROTOCOL_VERSION, META, silentLogger } from "@roundtrip/sdk/protocol";
import type { RedisNotificationBus } from "@roundtrip/sdk/redis";
import { createNodeHandler, McpServer } from "@roundtrip/sdk/server";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { openSharedState } from "@roundtrip/server";
import { freePort, RedisServer } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NginxProxy, startNginx, UPSTREAM_HEADER } from "../src/proxy.js";

/**
 * `subscriptions/listen` across a fleet. The reference server changes no list at run time (its tools
 * are fixed), so two SDK-level McpServers stand in for its instances: each with the reference
 * server's shared state (its Redis connections and bus), behind the same round-robin nginx.
 */
let redis: RedisServer;
let proxy: NginxProxy;
/** The keys both instances share: their bus messages are sealed under them. */
const keys = new AesGcmRequestStateCodec([randomBytes(32)]);
const instances: { mcp: McpServer; port: number; close(): Promise<void> }[] = [];

async function instance(): Promise<(typeof instances)[number]> {
  const state = await openSharedState({ url: redis.url }, silentLogger, keys);
  const bus = state.bus as RedisNotificationBus;
  await bus.ready();
  const mcp = new McpServer({ name: "fleet-listen", version: "1.0.0" }, { bus, logger: silentLogger });
  mcp.tool("base", {}, () => "ok");
  const http: HttpServer = createServer(createNodeHandler(mcp));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    mcp,
    port: (http.address() as AddressInfo).port,
    async close() {
      mcp.server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await state.close();
    },
  };
}

beforeAll(async () => {
  redis = await RedisServer.start();
  instances.push(await instance(), await instance());
  proxy = await startNginx({ port: await freePort(), upstreams: instances.map((i) => i.port) });
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  for (const each of instances) await each.close();
  await redis?.stop();
});

/** Reads a listen stream's SSE body event by event. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const data = buffer
        .slice(0, cut)
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      buffer = buffer.slice(cut + 2);
      if (data) yield JSON.parse(data) as Record<string, unknown>;
      cut = buffer.indexOf("\n\n");
    }
  }
}

describe("subscriptions/listen through round-robin nginx, the bus in Redis", () => {
  it("a stream opened through one instance hears a tool list change made on the other", async () => {
    const controller = new AbortController();
    const request = {
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [META.protocolVersion]: LATEST_PROTOCOL_VERSION,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "fleet-test", version: "1" },
        },
      },
    };
    const response = await fetch(proxy.origin, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify(request),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const holder = Number(response.headers.get(UPSTREAM_HEADER)?.split(",").pop()?.split(":").pop());
    const other = instances.find((each) => each.port !== holder);
    expect(other).toBeDefined();
    const stream = events(response.body as ReadableStream<Uint8Array>);
    expect((await stream.next()).value?.method).toBe("notifications/subscriptions/acknowledged");
    other?.mcp.tool("added-elsewhere", {}, () => "ok");
    expect((await stream.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "listen-1" } },
    });
    controller.abort();
  });
});
