import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ElicitParams } from "../callbacks.js";
import { Client } from "../client.js";
import { StdioClientTransport } from "./stdio-client.js";

const register = fileURLToPath(new URL("../test-support/ts-register.mjs", import.meta.url));
const main = fileURLToPath(new URL("../test-support/stdio-server-main.ts", import.meta.url));

/** A real child process running `serveStdio` with the rounds server. */
function roundsProcess(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--import", register, main],
    stderr: "pipe",
    shutdownGraceMs: 5000,
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const open: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

describe("StdioClientTransport with a real child process", () => {
  it("runs a multi-round tool over newline-delimited JSON", async () => {
    const transport = roundsProcess();
    open.push(transport);
    const client = new Client(transport, {
      onElicit: async (params: ElicitParams) => ({
        action: "accept",
        content: { name: params.message.length > 0 ? "Eve" : "?" },
      }),
      onSample: async () => ({ role: "assistant", content: { type: "text", text: "hey" }, model: "m" }),
      onListRoots: async () => ({ roots: [{ uri: "file:///srv" }] }),
    });
    expect(client.transport.kind).toBe("stdio");
    const greet = await client.callTool("greet");
    expect(greet.content[0]).toEqual({ type: "text", text: "Hello, Eve!" });
    const three = await client.callTool("three_rounds");
    expect(three.content[0]).toEqual({ type: "text", text: "Eve:hey with file:///srv" });
    expect(client.serverInfo?.name).toBe("rounds");
  });

  it("starts the command given as a target, and fails clearly when it cannot", async () => {
    const client = new Client({ command: "/nonexistent/roundtrip-server" });
    await expect(client.connect()).rejects.toThrow(/Could not run the stdio server/);
  });

  it("sends notifications/cancelled when a call is aborted", async () => {
    const transport = roundsProcess();
    open.push(transport);
    const client = new Client(transport);
    await client.connect();
    const stderr = createInterface({ input: transport.stderr as NodeJS.ReadableStream });
    const cancelled = new Promise<string>((resolve) =>
      stderr.on("line", (line) => line.startsWith("cancelled") && resolve(line)),
    );
    const controller = new AbortController();
    const call = client.callTool("wait_for_cancel", {}, { signal: controller.signal });
    // The server's handler only learns of the abort through notifications/cancelled.
    queueMicrotask(() => controller.abort());
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(await cancelled).toMatch(/^cancelled \d+$/);
  });

  it("shuts down by closing stdin: the server exits on its own", async () => {
    const transport = roundsProcess();
    const client = new Client(transport);
    await client.connect();
    const pid = transport.pid as number;
    await client.close();
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
  });

  it("escalates to SIGTERM, then SIGKILL, for a server that ignores both EOF and SIGTERM", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "-e",
        [
          'process.on("SIGTERM", () => {});',
          'process.stdin.on("data", (d) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(d).id, result: {} }) + "\\n"));',
          "setInterval(() => {}, 1000);",
        ].join(" "),
      ],
      shutdownGraceMs: 200,
    });
    await transport.request({ jsonrpc: "2.0", id: 1, method: "ping-like" });
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: null, signal: "SIGKILL" });
  });

  it("fails pending requests when the server process dies", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["-e", "process.stdin.once('data', () => process.exit(3))"],
    });
    await expect(transport.request({ jsonrpc: "2.0", id: 1, method: "tools/list" })).rejects.toThrow(
      /exited \(code 3\)/,
    );
  });
});
