import { type ChildProcess, spawn } from "node:child_process";
import { ErrorCode } from "../../protocol/errors.js";
import {
  classifyServerMessage,
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/jsonrpc.js";
import { describeError, type Logger, stderrLogger } from "../../protocol/logger.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { encodeLine, LineSplitter } from "../../protocol/stdio-framing.js";
import { realClock } from "../rounds/input-required-driver.js";
import {
  abortReason,
  type ClientTransport,
  cancelledNotification,
  type ServerRequestHandler,
  type TransportRequestOptions,
} from "./client-transport.js";

export interface StdioServerParameters {
  command: string;
  args?: readonly string[];
  /** Added to this process's environment (stdio servers take their credentials from it). */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** Where the server's stderr goes: this process's stderr by default. */
  stderr?: "inherit" | "pipe" | "ignore";
  /** How long shutdown waits after closing stdin, and again after SIGTERM, before escalating. Default 2000 ms. */
  shutdownGraceMs?: number;
  /**
   * Starts the server again when it exits on its own: the requests it left unanswered fail, and the
   * next request goes to a new process. Off by default; `true` takes the defaults below.
   */
  restart?: boolean | StdioRestartOptions;
  logger?: Logger;
}

export interface StdioRestartOptions {
  /** Restarts in a row, without an answer from the restarted process, before giving up. Default 3. */
  maxRestarts?: number;
  /** The wait before the first restart, doubling with each one in a row. Default 500 ms. */
  delayMs?: number;
  /** The longest wait between restarts. Default 10 s. */
  maxDelayMs?: number;
}

const DEFAULT_RESTART: Required<StdioRestartOptions> = { maxRestarts: 3, delayMs: 500, maxDelayMs: 10_000 };

interface Pending {
  resolve: (response: JsonRpcResponse) => void;
  reject: (error: unknown) => void;
}

const DEFAULT_GRACE_MS = 2000;

/**
 * Runs the server as a child process and speaks newline-delimited JSON-RPC on its stdin/stdout. The
 * process is started by the first request; aborting a request sends `notifications/cancelled`;
 * `close()` closes stdin, then sends SIGTERM, then SIGKILL, each after a grace period. On a 2025-era
 * session the server's requests (elicitation, sampling, roots, ping) are answered on stdin.
 */
export class StdioClientTransport implements ClientTransport {
  readonly kind = "stdio";
  readonly parameters: StdioServerParameters;
  onNotification?: (notification: JsonRpcNotification) => void;
  onRequest?: ServerRequestHandler;
  readonly #pending = new Map<RequestId, Pending>();
  readonly #logger: Logger;
  #child: ChildProcess | undefined;
  #exit: Promise<void> | undefined;
  #failure: Error | undefined;
  #exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #restart: Required<StdioRestartOptions> | undefined;
  /** Restarts since the last answer from the server. */
  #unanswered = 0;
  #restarts = 0;
  #closing = false;
  /** Until when the next start waits, after an exit. */
  #restartAt = 0;

  constructor(parameters: StdioServerParameters) {
    this.parameters = parameters;
    this.#logger = parameters.logger ?? stderrLogger;
    this.#restart = restartPolicy(parameters.restart);
  }

  /** How many times the server was started again after exiting on its own. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The child's process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the child ended, once it has: an exit code, or the signal that ended it. */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.#exitStatus;
  }

  /** The child's stderr when `stderr: "pipe"` was chosen. */
  get stderr(): NodeJS.ReadableStream | null {
    return this.#child?.stderr ?? null;
  }

  async request(request: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    // Awaited only when there is a wait: a request to a running process is written at once.
    const wait = this.#restartWait();
    if (wait > 0) await realClock.sleep(wait, signal);
    this.#start();
    if (this.#failure) throw this.#failure;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(request.id)) return;
        this.#write(cancelledNotification(request, signal as AbortSignal));
        reject(abortReason(signal as AbortSignal));
      };
      this.#pending.set(request.id, {
        resolve: (response) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(response);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#write(request);
    });
  }

  async notify(message: JsonRpcNotification): Promise<void> {
    const wait = this.#restartWait();
    if (wait > 0) await realClock.sleep(wait);
    this.#start();
    if (this.#failure) throw this.#failure;
    this.#write(message);
  }

  /** A stdio session is the process itself: nothing to add to its messages. */
  startSession(): void {}

  async endSession(): Promise<void> {}

  async close(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    const exit = this.#exit;
    if (!child || !exit) return;
    const grace = this.parameters.shutdownGraceMs ?? DEFAULT_GRACE_MS;
    child.stdin?.end();
    if (await exitsWithin(exit, grace)) return;
    child.kill("SIGTERM");
    if (await exitsWithin(exit, grace)) return;
    child.kill("SIGKILL");
    await exit;
  }

  /** How long the next start waits: the backoff after a process that exited on its own. */
  #restartWait(): number {
    return this.#child ? 0 : this.#restartAt - Date.now();
  }

  #start(): void {
    if (this.#child || this.#failure) return;
    const { command, args = [], env, cwd, stderr = "inherit" } = this.parameters;
    const child = spawn(command, [...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", stderr],
    });
    this.#child = child;
    // A child that never started emits "error" and may never emit "close": either one ends it.
    this.#exit = new Promise<void>((resolve) => {
      child.once("close", (code, signal) => {
        this.#exitStatus = { code, signal };
        const how = signal ? `signal ${signal}` : `code ${String(code)}`;
        if (this.#restart && !this.#closing && child === this.#child) this.#restartAfter(child, how);
        else
          this.#fail(
            new Error(
              `The stdio server "${command}" exited (${how}) with requests unanswered; check its stderr, then send them again`,
            ),
          );
        resolve();
      });
      child.once("error", (error) => {
        this.#fail(
          new Error(`Could not run the stdio server "${command}": ${error.message}`, { cause: error }),
        );
        if (child.pid === undefined) resolve();
      });
    });
    child.stdin?.on("error", (error) => this.#logger.warn(describeError(error), "stdio server stdin failed"));
    // Lines are handled as their chunk arrives, so all of them are in before the child's "close".
    const lines = new LineSplitter();
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const line of lines.push(chunk)) this.#receive(line);
    });
    child.stdout?.on("end", () => {
      const last = lines.end();
      if (last !== undefined) this.#receive(last);
    });
  }

  #receive(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#logger.warn({ length: line.length }, "stdio server wrote a line that is not JSON; ignored");
      return;
    }
    const received = classifyServerMessage(message);
    // A process that answers is working: the next exit starts the count of restarts again.
    this.#unanswered = 0;
    if (received.kind === "response") {
      const pending = this.#pending.get(received.message.id as RequestId);
      if (!pending) return;
      this.#pending.delete(received.message.id as RequestId);
      pending.resolve(received.message);
      return;
    }
    if (received.kind === "notification") {
      this.onNotification?.(received.message);
      return;
    }
    if (received.kind === "request") this.#serve(received.message);
  }

  #serve(request: JsonRpcRequest): void {
    const handler = this.onRequest;
    if (!handler) {
      this.#logger.warn({ method: request.method }, "stdio server sent a request this client cannot answer");
      this.#write(
        errorResponse(request.id, {
          code: ErrorCode.MethodNotFound,
          message: `This client answers no server requests (${request.method})`,
        }),
      );
      return;
    }
    handler(request, {}).then(
      (response) => this.#write(response),
      (error: unknown) =>
        this.#logger.warn(
          { ...describeError(error), method: request.method },
          "could not answer the server's request",
        ),
    );
  }

  #write(message: JsonRpcMessage): void {
    const stdin = this.#child?.stdin;
    if (stdin && !stdin.destroyed && stdin.writable) stdin.write(encodeLine(message));
  }

  /**
   * The server exited on its own: what it left unanswered fails now (it may have acted on it, so only
   * the caller may send it again), and the next request starts a new process after the backoff.
   */
  #restartAfter(child: ChildProcess, how: string): void {
    const policy = this.#restart as Required<StdioRestartOptions>;
    const { command } = this.parameters;
    this.#child = undefined;
    this.#exit = undefined;
    child.stdout?.removeAllListeners();
    if (this.#unanswered >= policy.maxRestarts) {
      this.#fail(
        new Error(
          `The stdio server "${command}" exited (${how}) after ${this.#unanswered} restarts in a row without answering; restarts stopped: check its stderr, then create a new transport`,
        ),
      );
      return;
    }
    const wait = Math.min(policy.delayMs * 2 ** this.#unanswered, policy.maxDelayMs);
    this.#unanswered += 1;
    this.#restarts += 1;
    this.#restartAt = Date.now() + wait;
    const error = new Error(
      `The stdio server "${command}" exited (${how}) with this request unanswered; it is started again for the next request (restart ${this.#unanswered} of ${policy.maxRestarts} in a row): send this one again if it is safe to repeat`,
    );
    this.#logger.warn({ command, exit: how, restartInMs: wait }, "stdio server exited; restarting it");
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

function restartPolicy(option: StdioServerParameters["restart"]): Required<StdioRestartOptions> | undefined {
  if (!option) return undefined;
  const policy = { ...DEFAULT_RESTART, ...(option === true ? {} : option) };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`restart.${name} is a whole number from 0, not ${String(value)}`);
    }
  }
  return policy;
}

async function exitsWithin(exit: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([exit.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
