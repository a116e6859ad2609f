import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { RequestStateSecurity } from "@roundtrip/sealing";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../src/protocol/input-required.js";
import { silentLogger } from "../../src/protocol/logger.js";
import { RedisOnceStore } from "../../src/server/fleet/redis/redis-once-store.js";
import { connectedClient } from "../../src/server/fleet/redis/test-support/connected-client.js";
import { McpServer } from "../../src/server/index.js";
import { toElicitationSchema } from "../../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../../src/server/mcp-server/input-responses.js";
import { createNodeHandler } from "../../src/server/transport/http-server.js";

// One instance of a deployer fleet as a real process, for the tests that kill it mid-round: `deploy`
// (once) asks to confirm, then writes a "deploying" line and never finishes, so a test can SIGKILL it
// between the start of a round and its outcome. Configured by its environment: ONCE_REDIS_URL,
// ONCE_PREFIX, ONCE_LEASE (seconds), ONCE_KEY (the fleet's sealing key). Writes JSON lines to stdout.

const line = (fields: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
};
const env = process.env;
const client = await connectedClient(env.ONCE_REDIS_URL ?? "");
const Confirm = z.object({ confirm: z.boolean() });
const mcp = new McpServer(
  { name: "deployer", version: "1.0.0" },
  {
    logger: silentLogger,
    requestStateSecurity: new RequestStateSecurity({ keys: [env.ONCE_KEY ?? ""] }),
    once: {
      store: new RedisOnceStore({ client, prefix: env.ONCE_PREFIX ?? "once:" }),
      lease: Number(env.ONCE_LEASE ?? "30"),
      instanceId: `child/${process.pid}`,
    },
  },
);
mcp.tool("deploy", { input: z.object({ service: z.string() }), once: true }, async (_args, ctx) => {
  if (!acceptedContent(ctx.inputResponses, "confirm", Confirm)?.confirm) {
    return inputRequired({
      inputRequests: { confirm: elicitForm("Really?", toElicitationSchema(Confirm)) },
      requestState: "asked",
    });
  }
  line({ msg: "deploying" });
  return new Promise<never>(() => {});
});

const handle = createNodeHandler(mcp.server);
const http = createServer((req, res) => void handle(req, res));
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  line({ msg: "listening", url: `http://127.0.0.1:${port}/mcp`, pid: process.pid });
});
