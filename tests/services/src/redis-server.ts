import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";
import { ensureTool } from "./ensure-tool.js";
import { freePort } from "./free-port.js";

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

/**
 * A real redis-server on 127.0.0.1, nothing persisted; `stop()` and `start()` keep its port, `freeze()`
 * and `thaw()` stall it in place.
 */
export class RedisServer {
  readonly port: number;
  readonly #binary: string;
  #process: ChildProcess | undefined;

  private constructor(binary: string, port: number) {
    this.#binary = binary;
    this.port = port;
  }

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await ensureTool("redis-server"), await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    const child = spawn(this.#binary, args, { stdio: "ignore" });
    this.#process = child;
    const deadline = Date.now() + 10_000;
    let delay = 5;
    while (!(await pings(this.port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 100);
    }
  }

  /**
   * Stops the process where it stands (SIGSTOP), as a host that freezes or swaps it out does: it keeps
   * its port and its connections, takes what clients write, and answers nothing until `thaw()`.
   */
  freeze(): void {
    this.#signal("SIGSTOP");
  }

  thaw(): void {
    this.#signal("SIGCONT");
  }

  #signal(signal: NodeJS.Signals): void {
    const child = this.#process;
    if (!child || child.exitCode !== null) throw new Error(`redis-server is not running to get ${signal}`);
    child.kill(signal);
  }

  async stop(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
  }
}
