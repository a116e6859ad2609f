import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@roundtrip/sdk";
import type { Server } from "@roundtrip/sdk/server";
import type { FlowKind } from "../driver/flows.js";
import type { Listening } from "./listen.js";
import type { BenchSealing } from "./roundtrip-server.js";

/** A server process the bench can start: one stack, serving the whole scenario. */
export type ServerKind =
  | "floor"
  | "floor-traced"
  | "roundtrip-mcp"
  | "roundtrip-mcp-fastify"
  | "roundtrip-mcp-once"
  | "roundtrip-mcp-once-redis"
  | "roundtrip-mcp-keyed"
  | "roundtrip-mcp-traced"
  | "roundtrip-mcp-tasks"
  | "roundtrip-mcp-tasks-redis"
  | "roundtrip-server-sealed"
  | "roundtrip-server-envelope"
  | "roundtrip-server-open"
  | "official-hmac"
  | "official-open"
  | "official-sessionful";

/** The environment variable a fleet instance reads its sealing key from (hex), one key for all. */
export const FLEET_KEY_ENV = "BENCH_REQUEST_STATE_KEY";

/**
 * Each kind imports only what it serves, when it starts: a server process that loaded every
 * target's stack (the official SDK, a Redis client, Fastify) would carry their memory into its own
 * peak RSS, and the floor would weigh the official SDK.
 */
const SERVERS: Readonly<Record<ServerKind, () => Promise<Listening>>> = {
  floor: async () => {
    const [{ floorApp }, { listenFastify }] = await Promise.all([
      import("./floor.js"),
      import("./listen.js"),
    ]);
    return listenFastify(floorApp());
  },
  "floor-traced": async () => {
    const [{ tracedFloorApp }, { listenFastify }] = await Promise.all([
      import("./floor-traced.js"),
      import("./listen.js"),
    ]);
    return listenFastify(tracedFloorApp());
  },
  "roundtrip-mcp": async () => {
    const { benchMcpServer } = await import("./roundtrip-mcp.js");
    return listenHandler(benchMcpServer());
  },
  "roundtrip-mcp-fastify": async () => {
    const [{ default: Fastify }, { mcpFastify }, { benchMcpServer }, { listenFastify }] = await Promise.all([
      import("fastify"),
      import("@roundtrip/sdk/fastify"),
      import("./roundtrip-mcp.js"),
      import("./listen.js"),
    ]);
    const app = Fastify({ logger: false });
    await app.register(mcpFastify, { server: benchMcpServer() });
    return listenFastify(app);
  },
  "roundtrip-mcp-keyed": async () => {
    const [{ benchMcpServer }, { RequestStateSecurity }] = await Promise.all([
      import("./roundtrip-mcp.js"),
      import("@roundtrip/sealing"),
    ]);
    const hex = process.env[FLEET_KEY_ENV];
    if (!hex) throw new Error(`${FLEET_KEY_ENV} is not set: a fleet instance needs the fleet's sealing key`);
    return listenHandler(
      benchMcpServer({ security: new RequestStateSecurity({ keys: [Buffer.from(hex, "hex")] }) }),
    );
  },
  "roundtrip-mcp-traced": async () => {
    const [{ benchMcpServer }, { discardingTelemetry }] = await Promise.all([
      import("./roundtrip-mcp.js"),
      import("./discarding-telemetry.js"),
    ]);
    // Before the server exists, as an application registers it: the SDK reads the global providers.
    discardingTelemetry();
    return listenHandler(benchMcpServer());
  },
  "roundtrip-mcp-tasks": async () => {
    const [{ benchMcpServer }, { Tasks }] = await Promise.all([
      import("./roundtrip-mcp.js"),
      import("@roundtrip/sdk/server"),
    ]);
    // The default keep time (one hour) of a single process's memory store; the shortest poll interval,
    // so the driver's wait between polls is no larger than a client must leave.
    return listenHandler(benchMcpServer({ tasks: new Tasks({ pollIntervalMs: 1 }) }));
  },
  "roundtrip-mcp-tasks-redis": async () => (await import("./tasks-redis.js")).tasksInRedis(),
  "roundtrip-mcp-once": async () => (await import("./once-ledger.js")).onceInMemory(),
  "roundtrip-mcp-once-redis": async () => (await import("./once-ledger.js")).onceInRedis(),
  "roundtrip-server-sealed": () => lowLevel("aes-gcm"),
  "roundtrip-server-envelope": () => lowLevel("pass-through"),
  "roundtrip-server-open": () => lowLevel("off"),
  "official-hmac": async () => officialListening((await import("./official.js")).officialNodeHandler(true)),
  "official-open": async () => officialListening((await import("./official.js")).officialNodeHandler(false)),
  "official-sessionful": async () =>
    officialListening((await import("./official-sessionful.js")).officialSessionfulHandler()),
};

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

async function listenHandler(server: McpServer | Server): Promise<Listening> {
  const [{ createNodeHandler }, { listenNode }] = await Promise.all([
    import("@roundtrip/sdk"),
    import("./listen.js"),
  ]);
  const handle = createNodeHandler(server);
  return listenNode((req, res) => void handle(req, res));
}

async function lowLevel(sealing: BenchSealing): Promise<Listening> {
  const { benchLowLevelServer } = await import("./roundtrip-server.js");
  return listenHandler(benchLowLevelServer(sealing));
}

async function officialListening(handler: NodeHandler): Promise<Listening> {
  return (await import("./listen.js")).listenNode(handler);
}

export function isServerKind(value: string): value is ServerKind {
  return Object.hasOwn(SERVERS, value);
}

export function startServer(kind: ServerKind): Promise<Listening> {
  return SERVERS[kind]();
}

/** One row of the table: a server and the flow run against it. */
export interface Target {
  name: string;
  server: ServerKind;
  flow: FlowKind;
  label: string;
  /** Whether the server refuses a tampered requestState (the soak's refusal flows need it). */
  protectsState: boolean;
  /** Also measure what an idle 2025-era session costs the server (RSS and heap per session). */
  idleSessions?: boolean;
  /** Run this many instances of `server` under one sealing key behind nginx round-robin. */
  fleet?: number;
}

/** The row every ratio is taken against: our McpServer with its default sealing. */
export const BASELINE = "roundtrip";
/** The baseline with an OpenTelemetry SDK registered: the baseline is the same server with none. */
export const TRACED = "roundtrip-traced";
/** The floor with the same SDK setup and one span and one metric record per request. */
export const TRACED_FLOOR = "floor-traced";
/** add run as a task, beside `roundtrip-single`, the same add as a plain tools/call. */
export const TASKS = "roundtrip-tasks";
/** The same flow, the task kept in Redis and run by a BullMQ worker. */
export const TASKS_REDIS = "roundtrip-tasks-redis";
export const PLAIN_CALL = "roundtrip-single";
/** greet as a once-tool, its ledger in the process, then in Redis. */
export const ONCE = "roundtrip-once";
export const ONCE_REDIS = "roundtrip-once-redis";

export const TARGETS: readonly Target[] = [
  {
    name: "floor",
    server: "floor",
    flow: "greet",
    label: "floor: bare Fastify route, same JSON",
    protectsState: false,
  },
  {
    name: BASELINE,
    server: "roundtrip-mcp",
    flow: "greet",
    label: "Roundtrip McpServer, sealed (createNodeHandler)",
    protectsState: true,
  },
  {
    name: "roundtrip-fastify",
    server: "roundtrip-mcp-fastify",
    flow: "greet",
    label: "Roundtrip McpServer, sealed (mcpFastify)",
    protectsState: true,
  },
  {
    name: "roundtrip-server-sealed",
    server: "roundtrip-server-sealed",
    flow: "greet",
    label: "Roundtrip low-level Server + requestStateBoundary",
    protectsState: true,
  },
  {
    name: "roundtrip-server-envelope",
    server: "roundtrip-server-envelope",
    flow: "greet",
    label: "the same boundary, pass-through codec (no encryption: splits the cost)",
    // The claims are only encoded: a changed character of the state itself would be accepted.
    protectsState: false,
  },
  {
    name: "roundtrip-server-open",
    server: "roundtrip-server-open",
    flow: "greet",
    label: "Roundtrip low-level Server, no sealing",
    protectsState: false,
  },
  {
    name: "official-hmac",
    server: "official-hmac",
    flow: "greet",
    label: "official SDK v2, HMAC requestState codec",
    protectsState: true,
  },
  {
    name: "official-open",
    server: "official-open",
    flow: "greet",
    label: "official SDK v2, no codec (its default)",
    protectsState: false,
  },
  {
    name: PLAIN_CALL,
    server: "roundtrip-mcp",
    flow: "add",
    label: "Roundtrip McpServer, single-round tools/call",
    protectsState: true,
  },
  {
    name: "official-single",
    server: "official-hmac",
    flow: "add",
    label: "official SDK v2, single-round tools/call",
    protectsState: true,
  },
  {
    name: TRACED,
    server: "roundtrip-mcp-traced",
    flow: "greet",
    label:
      "the baseline with the OpenTelemetry SDK registered (BatchSpanProcessor, periodic metric reader, exporters that drop)",
    protectsState: true,
  },
  {
    name: TRACED_FLOOR,
    server: "floor-traced",
    flow: "greet",
    label: "the floor with the same OpenTelemetry SDK setup: one span and one duration record per request",
    protectsState: false,
  },
  {
    name: TASKS,
    server: "roundtrip-mcp-tasks",
    flow: "add-task",
    label: "Roundtrip McpServer, add as a task (task: required), followed with tasks/get to completion",
    protectsState: true,
  },
  {
    name: TASKS_REDIS,
    server: "roundtrip-mcp-tasks-redis",
    flow: "add-task",
    label:
      "the same, the task in redis-server on loopback (RedisTaskStore) and run by a BullMQ worker in-process",
    protectsState: true,
  },
  {
    name: "roundtrip-fleet",
    server: "roundtrip-mcp-keyed",
    flow: "greet",
    label: "three baseline McpServers, one sealing key, behind nginx round-robin (no sticky routing)",
    protectsState: true,
    fleet: 3,
  },
  {
    name: ONCE,
    server: "roundtrip-mcp-once",
    flow: "greet",
    label: "the baseline with greet as a once-tool, ledger in this process (MemoryOnceStore)",
    protectsState: true,
  },
  {
    name: ONCE_REDIS,
    server: "roundtrip-mcp-once-redis",
    flow: "greet",
    label: "the baseline with greet as a once-tool, ledger in redis-server on loopback (RedisOnceStore)",
    protectsState: true,
  },
  {
    name: "roundtrip-legacy",
    server: "roundtrip-mcp",
    flow: "legacy-greet",
    label:
      "Roundtrip McpServer, a 2025-11-25 session: the bridge pushes the question (same server as the baseline)",
    protectsState: true,
    idleSessions: true,
  },
  {
    name: "official-legacy",
    server: "official-sessionful",
    flow: "legacy-greet",
    label: "official SDK v2, sessionful legacy transport: its shim pushes the question",
    protectsState: true,
    idleSessions: true,
  },
];

export function targetNamed(name: string): Target {
  const target = TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`unknown target "${name}"; known: ${TARGETS.map((t) => t.name).join(", ")}`);
  return target;
}
