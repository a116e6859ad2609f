import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../src/protocol/input-required.js";
import type { JsonRpcMessage } from "../../src/protocol/jsonrpc.js";
import type { Logger } from "../../src/protocol/logger.js";
import { RedisNotificationBus } from "../../src/server/fleet/redis/redis-notification-bus.js";
import { RedisSessionRegistry } from "../../src/server/fleet/redis/redis-session-registry.js";
import { connectedClient } from "../../src/server/fleet/redis/test-support/connected-client.js";
import { fleetCodec } from "../../src/server/fleet/test-support/fleet-codec.js";
import { McpServer } from "../../src/server/index.js";
import { InMemoryEventStore } from "../../src/server/legacy/event-store.js";
import { toElicitationSchema } from "../../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../../src/server/mcp-server/input-responses.js";
import { createNodeHandler } from "../../src/server/transport/http-server.js";

// A server process for the tests that must see a process survive: `ask` asks the user a question
// (a 2025-era client gets it as elicitation/create), `hello` answers at once. Configured by its
// environment only: ASKING_TIMEOUT_MS bounds a question (legacy.bridge.timeoutMs), and with
// ASKING_REDIS_URL the process is one instance of a fleet named ASKING_FLEET. It writes JSON lines to
// stdout: its log, where it listens, every HTTP response that closes (how a test knows the server
// saw a client go away) and every SSE event it records for resumption (how a test knows a call
// ended while its client was away), by id and method only.

const line = (fields: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
};
const logger: Logger = {
  debug: (fields, msg) => line({ level: "debug", ...fields, msg }),
  info: (fields, msg) => line({ level: "info", ...fields, msg }),
  warn: (fields, msg) => line({ level: "warn", ...fields, msg }),
  error: (fields, msg) => line({ level: "error", ...fields, msg }),
};

class ObservedEventStore extends InMemoryEventStore {
  override async append(streamId: string, message: JsonRpcMessage): Promise<string> {
    const eventId = await super.append(streamId, message);
    line({
      msg: "event recorded",
      eventId,
      ...("method" in message ? { method: message.method } : {}),
      ...("id" in message ? { id: message.id } : {}),
    });
    return eventId;
  }
}

const Name = z.object({ name: z.string() });

/** The bus and the session registry of one instance of a fleet on the Redis at `url`. */
async function fleetParts(
  url: string,
  fleet: string,
): Promise<{ bus: RedisNotificationBus; sessions: RedisSessionRegistry }> {
  const client = await connectedClient(url);
  // Every process of the test fleet seals the bus under the same keys.
  const bus = new RedisNotificationBus({ client, channel: `${fleet}:bus`, codec: fleetCodec() });
  await bus.ready();
  return { bus, sessions: new RedisSessionRegistry({ client, prefix: `${fleet}:session:` }) };
}

const env = process.env;
const timeoutMs = env.ASKING_TIMEOUT_MS === undefined ? undefined : Number(env.ASKING_TIMEOUT_MS);
const fleet =
  env.ASKING_REDIS_URL === undefined
    ? undefined
    : await fleetParts(env.ASKING_REDIS_URL, env.ASKING_FLEET ?? "asking");
const mcp = new McpServer(
  { name: "asking", version: "1.0.0" },
  {
    logger,
    ...(fleet ? { bus: fleet.bus } : {}),
    legacy: {
      eventStore: new ObservedEventStore(),
      ...(fleet ? { sessions: fleet.sessions } : {}),
      ...(timeoutMs === undefined ? {} : { bridge: { timeoutMs } }),
    },
  },
);
mcp.tool("ask", {}, (_args, ctx) => {
  const answer = acceptedContent(ctx.inputResponses, "name", Name);
  if (!answer) {
    return inputRequired({
      inputRequests: { name: elicitForm("What is your name?", toElicitationSchema(Name)) },
    });
  }
  return `Hello, ${answer.name}!`;
});
mcp.tool("hello", {}, () => "hello");

const handle = createNodeHandler(mcp.server);
const http = createServer((req, res) => {
  res.once("close", () =>
    line({ msg: "response closed", method: req.method, finished: res.writableFinished }),
  );
  void handle(req, res);
});
http.keepAliveTimeout = 120_000;
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  line({ msg: "listening", url: `http://127.0.0.1:${port}/mcp`, pid: process.pid });
});
