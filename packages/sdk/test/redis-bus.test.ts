import { randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec, RequestStateSecurity } from "@roundtrip/sealing";
import { RedisServer } from "@roundtrip/test-services";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { META } from "../src/protocol/versions.js";
import type { BusEvent } from "../src/server/fleet/notification-bus.js";
import { RedisNotificationBus } from "../src/server/fleet/redis/redis-notification-bus.js";
import { connectedClient } from "../src/server/fleet/redis/test-support/connected-client.js";
import { fleetCodec } from "../src/server/fleet/test-support/fleet-codec.js";
import { McpServer } from "../src/server/index.js";
import { FLEET_KEYS, until } from "../src/server/mcp-server/test-support/once.js";
import { recordingLogger, start } from "../src/test-support/in-process.js";
import { rpcRequest } from "../src/test-support/messages.js";
import { redisServerPerFile } from "./support/redis-server.js";

const redis = redisServerPerFile();
const closers: (() => unknown)[] = [];

// Runs before the server stops: after-hooks run in the reverse of the order they were declared.
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** One instance of a fleet: its own connections to the shared Redis, as a deployed server has. */
async function instance(url: string, channel: string) {
  const client = await connectedClient(url);
  const logger = recordingLogger();
  const bus = new RedisNotificationBus({ client, channel, codec: fleetCodec(), logger });
  await bus.ready();
  const mcp = new McpServer({ name: "fleet", version: "1" }, { bus, logger });
  mcp.tool("base", {}, () => "ok");
  closers.push(
    () => client.destroy(),
    () => bus.close(),
    () => mcp.server.close(),
  );
  return { mcp, bus, logger, client };
}

function listenToTools(mcp: McpServer, id: string) {
  return start(
    mcp.server,
    rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id }),
  );
}

describe("RedisNotificationBus, with a real redis-server", () => {
  it("a listen stream on one instance hears a tool added on another, once", async () => {
    const channel = `bus:${Math.random()}`;
    // B first, its own tool's PUBLISH done (a PING behind it on the same connection) before A
    // subscribes: otherwise it may reach A's stream late, as one more change.
    const b = await instance(redis().url, channel);
    await b.client.ping();
    const a = await instance(redis().url, channel);
    const listen = listenToTools(a.mcp, "on-a");
    await listen.notifications.next();
    b.mcp.tool("added-on-b", {}, () => "ok");
    expect(await listen.notifications.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "on-a" } },
    });
    // A's own change follows, heard once although A also receives its own PUBLISH.
    a.mcp.tool("added-on-a", {}, () => "ok");
    await listen.notifications.next();
    b.mcp.tool("second-on-b", {}, () => "ok");
    await listen.notifications.next();
    a.mcp.server.close();
    const done = await listen.done;
    expect(done.notifications.map((n) => n.method)).toEqual([
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
      "notifications/tools/list_changed",
      "notifications/tools/list_changed",
    ]);
  });

  it("with Redis down, a change still reaches this instance's streams, and the failure is logged", async () => {
    const own = await RedisServer.start();
    closers.push(() => own.stop());
    const a = await instance(own.url, "bus:down");
    const listen = listenToTools(a.mcp, "local");
    await listen.notifications.next();
    await own.stop();
    await until(() => !a.client.isReady);
    // Registering must not throw although the bus cannot publish.
    a.mcp.tool("while-down", {}, () => "ok");
    expect((await listen.notifications.next()).method).toBe("notifications/tools/list_changed");
    const logged = () => a.logger.records.find((r) => r.level === "error");
    await until(() => logged() !== undefined);
    const record = logged();
    expect(record?.message).toMatch(
      /other instances did not hear this notification.*check that Redis is reachable/,
    );
    expect(record?.fields).toMatchObject({ notification: "notifications/tools/list_changed" });
    a.mcp.server.close();
    await listen.done;
  });
});

describe("RedisNotificationBus: what reaches the channel without the fleet's keys", () => {
  it("drops, and logs without their content, messages not sealed by a holder of the keys for the bus, or heard before", async () => {
    const channel = `bus:${Math.random()}`;
    const a = await instance(redis().url, channel);
    const b = await instance(redis().url, channel);
    const raw = createClient({ url: redis().url });
    await raw.connect();
    // A bus given other keys: whatever it says, the fleet cannot open.
    const stranger = new RedisNotificationBus({
      client: raw,
      channel,
      codec: new AesGcmRequestStateCodec([randomBytes(32)]),
      logger: recordingLogger(),
    });
    const spy = raw.duplicate();
    await spy.connect();
    closers.push(
      () => raw.destroy(),
      () => stranger.close(),
      () => spy.destroy(),
    );
    const captured: string[] = [];
    await spy.subscribe(channel, (message) => captured.push(message));
    const heard: string[] = [];
    a.bus.subscribe((event) => heard.push(event.type === "notification" ? event.method : event.type));
    const marker = "forged-content-marker";
    const forged = (method: string): BusEvent => ({ type: "notification", method, params: { marker } });

    // A genuine message from B, kept by whoever can read the channel, then sent again. Once A hears
    // it, A has read everything published before (the instances' own startup messages).
    await b.bus.publish(forged("b/genuine"));
    await until(() => captured.length === 1 && heard.includes("b/genuine"), 60_000);
    const logged = a.logger.records.length;
    const requestState = new RequestStateSecurity({ keys: FLEET_KEYS }).seal("{}", {
      method: "tools/call",
      target: "deploy",
    });
    await raw.publish(channel, JSON.stringify({ from: "forger", event: forged("plain") }));
    await stranger.publish(forged("other-keys"));
    await raw.publish(channel, requestState);
    await raw.publish(channel, captured[0] as string);
    // Published after the others on the same channel, so heard after A has read all of them.
    await b.bus.publish(forged("b/after"));
    await until(() => heard.includes("b/after"), 60_000);
    expect(heard.slice(heard.indexOf("b/genuine"))).toEqual(["b/genuine", "b/after"]);
    const dropped = a.logger.records
      .slice(logged)
      .filter((record) => /dropped a message on the bus/.test(record.message));
    expect(dropped.map((record) => [record.level, record.fields.reason])).toEqual([
      ["warn", "keys"],
      ["warn", "keys"],
      // A requestState under the same keys does not open as a bus message either.
      ["warn", "keys"],
      ["warn", "replay"],
    ]);
    expect(JSON.stringify(a.logger.records)).not.toContain(marker);
  });

  it("needs the fleet's keys: a bus without them is refused, saying what to pass", () => {
    const client = createClient({ url: redis().url });
    expect(() => new RedisNotificationBus({ client } as never)).toThrow(
      /RedisNotificationBus needs \{ client, codec \}.*the request-state keys every instance shares/,
    );
  });
});
