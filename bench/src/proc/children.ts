import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ServerKind } from "../targets/catalog.js";
import type { RuntimeStats } from "../targets/runtime-window.js";
import {
  type DriverJob,
  type DriverMessage,
  isTagged,
  type ServerCommand,
  type ServerMemory,
  type ServerMessage,
} from "./messages.js";
import type { RedisCommandCounts } from "./redis-counts.js";

export interface ChildOptions {
  /** Pins the process (all its threads) to one CPU with taskset. */
  cpu?: number;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: readonly string[];
  /** Added to the parent's environment (a fleet's shared sealing key). */
  env?: Readonly<Record<string, string>>;
}

const SERVER_SCRIPT = fileURLToPath(new URL("../targets/child.js", import.meta.url));
const DRIVER_SCRIPT = fileURLToPath(new URL("../driver/child.js", import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

function spawnNode(script: string, args: readonly string[], options: ChildOptions): ChildProcess {
  const node = [...(options.nodeArgs ?? []), script, ...args];
  // taskset execs node in place, so the pid, the IPC channel and the affinity all carry over.
  const [command, argv] =
    options.cpu === undefined
      ? [process.execPath, node]
      : ["taskset", ["-c", String(options.cpu), process.execPath, ...node]];
  const env = options.env ? { ...process.env, ...options.env } : process.env;
  return spawn(command, argv, { stdio: ["ignore", "inherit", "inherit", "ipc"], env });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stopChild(child: ChildProcess, ask: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  ask();
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited(child);
  clearTimeout(timer);
}

export interface RunningServer {
  pid: number;
  port: number;
  /** Asks the server for its memory after a full collection. */
  memory(): Promise<ServerMemory>;
  /** The measured window opens: the server starts its runtime watch and Redis counts over; false when it has no Redis. */
  openWindow(): Promise<boolean>;
  /** The window closes: what stalled the server in it, and the commands its redis-server ran, when it has one. */
  closeWindow(): Promise<ClosedWindow>;
  stop(): Promise<void>;
}

/** Sends `command` and waits for the server's message of the same type, or for it to exit. */
function ask<T extends ServerCommand["type"] & ServerMessage["type"]>(
  child: ChildProcess,
  type: T,
): Promise<Extract<ServerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    // A server already gone would never send its exit again, nor answer: say so at once.
    if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
      reject(new Error(`the server had exited before it was asked ${type}`));
      return;
    }
    const gone = (): void => {
      child.off("message", listen);
      reject(new Error(`the server exited before it answered ${type}`));
    };
    const listen = (message: unknown): void => {
      if (!isTagged<ServerMessage>(message) || message.type !== type) return;
      child.off("message", listen);
      child.off("exit", gone);
      resolve(message as Extract<ServerMessage, { type: T }>);
    };
    child.on("message", listen);
    child.once("exit", gone);
    // A channel that closes under the send reports here, not as an unhandled 'error' on the child.
    child.send({ type }, (error) => {
      if (!error) return;
      child.off("message", listen);
      child.off("exit", gone);
      reject(new Error(`could not ask the server ${type}: ${error.message}`));
    });
  });
}

async function askMemory(child: ChildProcess): Promise<ServerMemory> {
  const { rssBytes, heapUsedBytes, collected } = await ask(child, "memory");
  return { rssBytes, heapUsedBytes, collected };
}

/** What a server reports when the measured window closes. */
export interface ClosedWindow {
  runtime: RuntimeStats;
  /** Undefined for a server without a redis-server. */
  redisCommands?: RedisCommandCounts;
}

async function openWindow(child: ChildProcess): Promise<boolean> {
  const reply = await ask(child, "window-open");
  if (reply.error !== undefined) throw new Error(`could not reset its Redis command counts: ${reply.error}`);
  return reply.counting;
}

async function closeWindow(child: ChildProcess): Promise<ClosedWindow> {
  const reply = await ask(child, "window-close");
  if (reply.error !== undefined) throw new Error(`could not read its Redis command counts: ${reply.error}`);
  return { runtime: reply.runtime, ...(reply.counts ? { redisCommands: reply.counts } : {}) };
}

/** Starts one target server in its own process and waits until it listens. */
export function startServerChild(kind: ServerKind, options: ChildOptions = {}): Promise<RunningServer> {
  const child = spawnNode(SERVER_SCRIPT, [kind], options);
  return new Promise((resolve, reject) => {
    const fail = (reason: string): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`server ${kind}: ${reason}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once("exit", (code, signal) => fail(`exited (${code ?? signal}) before it was ready`));
    child.on("message", (message: unknown) => {
      if (!isTagged<ServerMessage>(message)) return;
      if (message.type === "failed") return fail(message.message);
      if (message.type !== "ready") return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      const pid = child.pid;
      if (pid === undefined) return fail("has no pid");
      resolve({
        pid,
        port: message.port,
        memory: () => askMemory(child),
        openWindow: () => openWindow(child),
        closeWindow: () => closeWindow(child),
        stop: () => stopChild(child, () => child.send({ type: "stop" })),
      });
    });
  });
}

/**
 * Runs the load driver in its own process and passes on each message it sends. Resolves when it has
 * exited; it is killed if it overruns `deadlineMs`, so a hung target cannot hang the bench.
 */
export function runDriverChild(
  job: DriverJob,
  deadlineMs: number,
  onMessage: (message: DriverMessage) => void,
  options: ChildOptions = {},
): Promise<void> {
  const child = spawnNode(DRIVER_SCRIPT, [], options);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the load driver overran its ${deadlineMs} ms deadline`));
    }, deadlineMs);
    child.on("message", (message: unknown) => {
      if (isTagged<DriverMessage>(message)) onMessage(message);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the load driver exited with ${code ?? signal}`));
    });
    child.send(job);
  });
}
