import { describe, expect, it } from "vitest";
import * as z from "zod";
import { recordingLogger } from "../../test-support/in-process.js";
import { McpServer } from "../index.js";
import { connectionsClosedAfterEach, resultOf } from "./test-support/connections.js";

/** A clock the client's cache reads, moved by hand. */
function manualClock() {
  let now = 1_700_000_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** Server-wide: reuse nothing. Per registration: some resources, a template and prompts say otherwise. */
function hintedServer() {
  const reads: string[] = [];
  const mcp = new McpServer(
    { name: "hinted", version: "1.0.0" },
    { logger: recordingLogger(), cache: { ttlMs: 0, cacheScope: "public" } },
  );
  mcp.resource("logo", { uri: "assets://logo", cache: { ttlMs: 60_000 } }, () => {
    reads.push("logo");
    return "<svg/>";
  });
  mcp.resource("clock", { uri: "time://now" }, () => {
    reads.push("clock");
    return new Date().toISOString();
  });
  mcp.resource(
    "forecast",
    { uri: "weather://{city}", cache: { ttlMs: 5_000, cacheScope: "private" } },
    ({ city }) => {
      reads.push(city);
      return `sunny in ${city}`;
    },
  );
  mcp.prompt("summary", { cache: { ttlMs: 30_000 } }, () => "Summarise");
  mcp.prompt("digest", { input: z.object({ day: z.string() }), cache: { ttlMs: 10_000 } }, () => "Digest");
  return { mcp, reads };
}

describe("per-registration cache hints, honoured by the Roundtrip Client's result cache over HTTP", () => {
  const connect = connectionsClosedAfterEach();

  it("reuses a resource while its own ttlMs says it is fresh and reads it again after, whatever the server-wide policy", async () => {
    const { mcp, reads } = hintedServer();
    const clock = manualClock();
    const { client, legs } = await connect(mcp, "http", { cache: { now: clock.now } });
    await client.readResource("assets://logo");
    clock.advance(59_000);
    expect((await client.readResource("assets://logo")).contents[0]).toMatchObject({ text: "<svg/>" });
    expect(reads).toEqual(["logo"]);
    expect(resultOf(legs("resources/read")[0]?.response)).toMatchObject({
      ttlMs: 60_000,
      cacheScope: "public",
    });
    clock.advance(1_001);
    await client.readResource("assets://logo");
    expect(reads).toEqual(["logo", "logo"]);
  });

  it("leaves a resource without a hint at the server-wide policy: read every time", async () => {
    const { mcp, reads } = hintedServer();
    const { client, legs } = await connect(mcp, "http", { cache: { now: manualClock().now } });
    await client.readResource("time://now");
    await client.readResource("time://now");
    expect(reads).toEqual(["clock", "clock"]);
    expect(resultOf(legs("resources/read")[0]?.response)).toMatchObject({ ttlMs: 0, cacheScope: "public" });
  });

  it("gives every URI of a template the template's hint, each cached under its own URI", async () => {
    const { mcp, reads } = hintedServer();
    const clock = manualClock();
    const { client, legs } = await connect(mcp, "http", { cache: { now: clock.now } });
    await client.readResource("weather://paris");
    await client.readResource("weather://paris");
    await client.readResource("weather://rome");
    expect(reads).toEqual(["paris", "rome"]);
    expect(resultOf(legs("resources/read")[0]?.response)).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "private",
    });
    clock.advance(5_001);
    await client.readResource("weather://paris");
    expect(reads).toEqual(["paris", "rome", "paris"]);
  });

  it("hints a list no longer than its least fresh entry, shared only if every entry may be", async () => {
    const { mcp } = hintedServer();
    const clock = manualClock();
    const { client, legs } = await connect(mcp, "http", { cache: { now: clock.now } });
    await client.listPrompts();
    clock.advance(9_000);
    await client.listPrompts();
    expect(legs("prompts/list")).toHaveLength(1);
    expect(resultOf(legs("prompts/list")[0]?.response)).toMatchObject({
      ttlMs: 10_000,
      cacheScope: "public",
    });
    clock.advance(1_001);
    await client.listPrompts();
    expect(legs("prompts/list")).toHaveLength(2);

    await client.listResources();
    expect(resultOf(legs("resources/list")[0]?.response)).toMatchObject({ ttlMs: 0, cacheScope: "public" });
    await client.listResourceTemplates();
    expect(resultOf(legs("resources/templates/list")[0]?.response)).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "private",
    });
  });

  it("refuses a hint a client could not honour at registration", () => {
    const mcp = new McpServer({ name: "bad", version: "1.0.0" }, { logger: recordingLogger() });
    expect(() => mcp.resource("r", { uri: "a://b", cache: { ttlMs: -1 } }, () => "x")).toThrow(
      "Resource 'r': cache.ttlMs must be a whole number of milliseconds, 0 or more",
    );
    expect(() =>
      // @ts-expect-error: "shared" is not a cache scope
      mcp.prompt("p", { cache: { cacheScope: "shared" } }, () => "x"),
    ).toThrow('Prompt \'p\': cache.cacheScope must be "public" or "private"');
  });
});
