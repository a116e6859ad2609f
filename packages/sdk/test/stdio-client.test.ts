import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { afterEach, describe, expect, it } from "vitest";
import type { ElicitParams } from "../src/client/callbacks.js";
import { Client } from "../src/client/client.js";
import { RequestTimeoutError } from "../src/client/errors.js";
import { StdioClientTransport } from "../src/client/transport/stdio-client.js";
import type { JsonRpcResultResponse } from "../src/protocol/jsonrpc.js";

const main = fileURLToPath(new URL("./support/stdio-server-main.ts", import.meta.url));

/** A real child process running `serveStdio` with the rounds server. */
function roundsProcess(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: typescriptArgs(main),
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
    const lineStarting = (prefix: string) =>
      new Promise<string>((resolve) => stderr.on("line", (line) => line.startsWith(prefix) && resolve(line)));
    const waiting = lineStarting("waiting");
    const cancelled = lineStarting("cancelled");
    const controller = new AbortController();
    const call = client.callTool("wait_for_cancel", {}, { signal: controller.signal });
    // Aborted once the server is handling it (an abort before the request leaves sends nothing); its
    // handler only learns of the abort through notifications/cancelled.
    await waiting;
    controller.abort();
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

describe("StdioClientTransport with U+2028 and U+2029 inside messages", () => {
  const separators = "\u2028 and \u2029";

  it("runs a multi-round tool whose answers, state and result hold them, both ways", async () => {
    const transport = roundsProcess();
    open.push(transport);
    const client = new Client(transport, {
      onElicit: async () => ({ action: "accept", content: { name: `Eve${separators}` } }),
      onSample: async () => ({
        role: "assistant",
        content: { type: "text", text: `hey${separators}` },
        model: "m",
      }),
      onListRoots: async () => ({ roots: [{ uri: "file:///srv" }] }),
    });
    // greet's requestState holds a raw U+2028 too, and must come back byte for byte.
    const greet = await client.callTool("greet");
    expect(greet.content[0]).toEqual({ type: "text", text: `Hello, Eve${separators}!` });
    const three = await client.callTool("three_rounds");
    expect(three.content[0]).toEqual({
      type: "text",
      text: `Eve${separators}:hey${separators} with file:///srv`,
    });
  });

  it("writes them escaped on the server's stdin", async () => {
    // The server answers each line with the line itself, as the bytes it read.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "-e",
        [
          "let buffered = Buffer.alloc(0);",
          'process.stdin.on("data", (chunk) => {',
          "  buffered = Buffer.concat([buffered, chunk]);",
          "  for (let end = buffered.indexOf(10); end >= 0; end = buffered.indexOf(10)) {",
          '    const line = buffered.subarray(0, end).toString("utf8");',
          "    buffered = buffered.subarray(end + 1);",
          '    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(line).id, result: { line } }) + "\\n");',
          "  }",
          "});",
        ].join("\n"),
      ],
    });
    open.push(transport);
    const response = await transport.request({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: separators } },
    });
    expect(response).toMatchObject({ id: 1, result: { line: expect.any(String) } });
    const line = String((response as JsonRpcResultResponse).result.line);
    expect(line).not.toMatch(/[\u2028\u2029]/);
    expect(line).toContain("\\u2028 and \\u2029");
    expect(JSON.parse(line)).toMatchObject({ params: { arguments: { text: separators } } });
  });

  it("reads a line a server wrote with them raw as one message, in chunks cut inside them", async () => {
    // Another SDK's server writes JSON.stringify's output as it is, in pieces cut inside U+2028, inside
    // U+2029 and between \r and \n; it exits once it has written, so a lost line fails the request.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "-e",
        [
          'process.stdin.once("data", (chunk) => {',
          "  const id = JSON.parse(chunk.toString()).id;",
          `  const bytes = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, result: { text: ${JSON.stringify(separators)} } }) + "\\r\\n");`,
          '  const cuts = [bytes.indexOf(Buffer.from("\\u2028")) + 1, bytes.indexOf(Buffer.from("\\u2029")) + 2, bytes.length - 1, bytes.length];',
          "  let start = 0;",
          "  const next = () => {",
          "    const cut = cuts.shift();",
          "    if (cut === undefined) return process.exit(0);",
          "    process.stdout.write(bytes.subarray(start, cut), next);",
          "    start = cut;",
          "  };",
          "  next();",
          "});",
        ].join("\n"),
      ],
    });
    open.push(transport);
    expect(await transport.request({ jsonrpc: "2.0", id: 7, method: "tools/list" })).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { text: separators },
    });
  });
});

/** A process that reads its stdin and never answers: it echoes what it reads to stderr for the test. */
const SILENT_SERVER = "process.stdin.pipe(process.stderr)";

function silentStdioServer(): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["-e", SILENT_SERVER],
    stderr: "pipe",
    shutdownGraceMs: 100,
  });
  open.push(transport);
  return transport;
}

/** Resolves once the stream has carried `text`, without waiting a fixed time. */
function sees(stream: NodeJS.ReadableStream | null, text: string): Promise<string> {
  let seen = "";
  return new Promise((resolve) => {
    stream?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes(text)) resolve(seen);
    });
  });
}

describe("StdioClientTransport and the connect timeout", () => {
  it("fails connect() to a silent stdio server and cancels the probe", async () => {
    const transport = silentStdioServer();
    const client = new Client(transport, { connectTimeoutMs: 300 });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: "server/discover", option: "connectTimeoutMs", timeoutMs: 300 });
    expect((error as Error).message).toContain("raise connectTimeoutMs");
    // The child starts with the first request; its stderr holds what it read until someone listens.
    const cancelled = sees(transport.stderr, '"method":"notifications/cancelled"');
    const written = (await cancelled).split("\n").filter((line) => line.trim() !== "");
    const probe = JSON.parse(written[0] ?? "{}") as { id: number; method: string };
    expect(probe.method).toBe("server/discover");
    const cancel = JSON.parse(written.find((line) => line.includes("notifications/cancelled")) ?? "{}");
    expect(cancel.params.requestId).toBe(probe.id);
  });
});
