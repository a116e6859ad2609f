import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { ErrorCode } from "../../protocol/errors.js";
import {
  classifyServerMessage,
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  notification,
} from "../../protocol/jsonrpc.js";
import { describeError, type Logger, stderrLogger } from "../../protocol/logger.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { NotificationMethod } from "../../protocol/schemas/notifications.js";
import {
  abortReason,
  type ClientTransport,
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
  logger?: Logger;
}

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

  constructor(parameters: StdioServerParameters) {
    this.parameters = parameters;
    this.#logger = parameters.logger ?? stderrLogger;
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
    this.#start();
    if (this.#failure) throw this.#failure;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(request.id)) return;
        const reason = signal?.reason instanceof Error ? signal.reason.message : "aborted by the client";
        this.#write(notification(NotificationMethod.cancelled, { requestId: request.id, reason }));
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
    this.#start();
    if (this.#failure) throw this.#failure;
    this.#write(message);
  }

  /** A stdio session is the process itself: nothing to add to its messages. */
  startSession(): void {}

  async endSession(): Promise<void> {}

  async close(): Promise<void> {
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

  #start(): void {
    if (this.#child) return;
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
        this.#fail(
          new Error(
            `The stdio server "${command}" exited (${signal ? `signal ${signal}` : `code ${String(code)}`}) with requests unanswered; check its stderr, then send them again`,
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
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream, crlfDelay: Infinity });
    lines.on("line", (line) => this.#receive(line));
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
    if (stdin && !stdin.destroyed && stdin.writable) stdin.write(`${JSON.stringify(message)}\n`);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
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
