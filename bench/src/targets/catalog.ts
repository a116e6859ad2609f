import { createNodeHandler } from "@roundtrip/sdk";
import { mcpFastify } from "@roundtrip/sdk/fastify";
import { RequestStateSecurity } from "@roundtrip/sealing";
import Fastify from "fastify";
import type { FlowKind } from "../driver/flows.js";
import { floorApp } from "./floor.js";
import { type Listening, listenFastify, listenNode } from "./listen.js";
import { officialNodeHandler } from "./official.js";
import { officialSessionfulHandler } from "./official-sessionful.js";
import { onceInMemory, onceInRedis } from "./once-ledger.js";
import { benchMcpServer } from "./roundtrip-mcp.js";
import { benchLowLevelServer } from "./roundtrip-server.js";

/** A server process the bench can start: one stack, serving the whole scenario. */
export type ServerKind =
  | "floor"
  | "roundtrip-mcp"
  | "roundtrip-mcp-fastify"
  | "roundtrip-mcp-once"
  | "roundtrip-mcp-once-redis"
  | "roundtrip-mcp-keyed"
  | "roundtrip-server-sealed"
  | "roundtrip-server-envelope"
  | "roundtrip-server-open"
  | "official-hmac"
  | "official-open"
  | "official-sessionful";

/** The environment variable a fleet instance reads its sealing key from (hex), one key for all. */
export const FLEET_KEY_ENV = "BENCH_REQUEST_STATE_KEY";

function fleetSecurity(): RequestStateSecurity {
  const hex = process.env[FLEET_KEY_ENV];
  if (!hex) throw new Error(`${FLEET_KEY_ENV} is not set: a fleet instance needs the fleet's sealing key`);
  return new RequestStateSecurity({ keys: [Buffer.from(hex, "hex")] });
}

const SERVERS: Readonly<Record<ServerKind, () => Promise<Listening>>> = {
  floor: () => listenFastify(floorApp()),
  "roundtrip-mcp": () => {
    const handle = createNodeHandler(benchMcpServer());
    return listenNode((req, res) => void handle(req, res));
  },
  "roundtrip-mcp-fastify": async () => {
    const app = Fastify({ logger: false });
    await app.register(mcpFastify, { server: benchMcpServer() });
    return listenFastify(app);
  },
  "roundtrip-mcp-keyed": () => {
    const handle = createNodeHandler(benchMcpServer({ security: fleetSecurity() }));
    return listenNode((req, res) => void handle(req, res));
  },
  "roundtrip-mcp-once": onceInMemory,
  "roundtrip-mcp-once-redis": onceInRedis,
  "roundtrip-server-sealed": () => {
    const handle = createNodeHandler(benchLowLevelServer("aes-gcm"));
    return listenNode((req, res) => void handle(req, res));
  },
  "roundtrip-server-envelope": () => {
    const handle = createNodeHandler(benchLowLevelServer("pass-through"));
    return listenNode((req, res) => void handle(req, res));
  },
  "roundtrip-server-open": () => {
    const handle = createNodeHandler(benchLowLevelServer("off"));
    return listenNode((req, res) => void handle(req, res));
  },
  "official-hmac": () => listenNode(officialNodeHandler(true)),
  "official-open": () => listenNode(officialNodeHandler(false)),
  "official-sessionful": () => listenNode(officialSessionfulHandler()),
};

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
    name: "roundtrip-single",
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
    name: "roundtrip-fleet",
    server: "roundtrip-mcp-keyed",
    flow: "greet",
    label: "three baseline McpServers, one sealing key, behind nginx round-robin (no sticky routing)",
    protectsState: true,
    fleet: 3,
  },
  {
    name: "roundtrip-once",
    server: "roundtrip-mcp-once",
    flow: "greet",
    label: "the baseline with greet as a once-tool, ledger in this process (MemoryOnceStore)",
    protectsState: true,
  },
  {
    name: "roundtrip-once-redis",
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
