import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "../../src/protocol/logger.js";
import { createNodeHandler } from "../../src/server/transport/http-server.js";
import { fleetInstance } from "./task-fleet.js";

// One instance of the task fleet as a real process, for the tests that kill the worker running a
// task: its rollout writes a "rolling out" line and never finishes. Configured by its environment:
// FLEET_REDIS_URL, FLEET_KEY (hex), FLEET_PREFIX, FLEET_LOCK_MS. Writes JSON lines to stdout.

const line = (fields: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
};
const env = process.env;
const instance = await fleetInstance(
  {
    redisUrl: env.FLEET_REDIS_URL ?? "",
    key: env.FLEET_KEY ?? "",
    prefix: env.FLEET_PREFIX ?? "fleet",
    lockMs: Number(env.FLEET_LOCK_MS ?? "2000"),
    logger: silentLogger,
  },
  {
    rolling: () => line({ msg: "rolling out" }),
    rollout: () => new Promise<never>(() => {}),
  },
);
instance.runner.work(instance.tasks);
const handle = createNodeHandler(instance.mcp.server);
const http = createServer((req, res) => void handle(req, res));
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  line({ msg: "listening", url: `http://127.0.0.1:${port}/mcp`, pid: process.pid });
});
