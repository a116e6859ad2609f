import { PassThrough } from "node:stream";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The v1 client's stdio framing (its own ReadBuffer and serializeMessage) over in-memory pipes, so
 * the official v1 Client talks to `serveStdio` in this process. The v1 StdioClientTransport itself
 * only spawns a child process, which would need a TypeScript loader this package does not have.
 */
export class V1PipeTransport implements Transport {
  /** What the server reads (the client writes here). */
  readonly toServer = new PassThrough();
  /** What the server writes (the client reads here). */
  readonly fromServer = new PassThrough();
  readonly #buffer = new ReadBuffer();
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  async start(): Promise<void> {
    this.fromServer.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        const message = this.#buffer.readMessage();
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}
