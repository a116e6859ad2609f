import { fileURLToPath } from "node:url";
import { typescriptArgs } from "@roundtrip/test-node-ts";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../src/client/client.js";
import type { ListenStream } from "../src/client/listen-stream.js";
import { StdioClientTransport, type StdioServerParameters } from "../src/client/transport/stdio-client.js";
import { silentLogger } from "../src/protocol/logger.js";

const main = fileURLToPath(new URL("./support/crashing-stdio-main.ts", import.meta.url));

const open: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

function crashing(restart: StdioServerParameters["restart"]): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: typescriptArgs(main),
    stderr: "ignore",
    restart,
    logger: silentLogger,
  });
  open.push(transport);
  return transport;
}

async function pidOf(client: Client): Promise<string> {
  const result = await client.callTool("pid");
  return (result.content[0] as { text: string }).text;
}

describe("StdioClientTransport restarts a server that exits on its own", () => {
  it("fails the request in flight clearly and sends the next to a new process", async () => {
    const transport = crashing({ delayMs: 1 });
    const client = new Client(transport);
    const first = await pidOf(client);
    await expect(client.callTool("crash")).rejects.toThrow(
      /exited \(code 70\) with this request unanswered; it is started again for the next request \(restart 1 of 3 in a row\)/,
    );
    const second = await pidOf(client);
    expect(second).not.toBe(first);
    expect(transport.restarts).toBe(1);
    expect(transport.exitStatus).toEqual({ code: 70, signal: null });
  });

  it("counts restarts in a row only until the new process answers", async () => {
    const transport = crashing({ maxRestarts: 1, delayMs: 1 });
    const client = new Client(transport);
    for (let crash = 0; crash < 2; crash++) {
      await expect(client.callTool("crash")).rejects.toThrow(/restart 1 of 1 in a row/);
      await pidOf(client);
    }
    expect(transport.restarts).toBe(2);
  });

  it("stops after maxRestarts in a row without an answer, saying what to do", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["-e", "process.exit(3)"],
      restart: { maxRestarts: 2, delayMs: 1 },
      logger: silentLogger,
    });
    open.push(transport);
    const client = new Client(transport);
    await expect(client.connect()).rejects.toThrow(/restart 1 of 2/);
    await expect(client.connect()).rejects.toThrow(/restart 2 of 2/);
    await expect(client.connect()).rejects.toThrow(
      /after 2 restarts in a row without answering; restarts stopped/,
    );
    await expect(client.connect()).rejects.toThrow(/restarts stopped/);
    expect(transport.restarts).toBe(2);
  });

  it("reopens a listen stream on the new process", async () => {
    const transport = crashing(true);
    const client = new Client(transport, { logger: silentLogger });
    const stream: ListenStream = client.listen({ toolsListChanged: true }, { reconnectDelayMs: 1 });
    expect((await stream.next()).value).toMatchObject({ type: "acknowledged" });
    const before = transport.pid;
    await expect(client.callTool("crash")).rejects.toThrow(/started again/);
    expect((await stream.next()).value).toMatchObject({ type: "acknowledged" });
    expect(transport.pid).not.toBe(before);
    await stream.return();
  });

  it("opens a 2025-era session again on the new process, which has forgotten the old one", async () => {
    const transport = crashing({ delayMs: 1 });
    const client = new Client(transport, { era: "legacy", logger: silentLogger });
    const first = await pidOf(client);
    expect(client.era).toBe("legacy");
    await expect(client.callTool("crash")).rejects.toThrow(/started again/);
    expect(await pidOf(client)).not.toBe(first);
    expect(client.era).toBe("legacy");
  });

  it("keeps the old behaviour without the option: every later request fails", async () => {
    const transport = crashing(undefined);
    const client = new Client(transport);
    await pidOf(client);
    await expect(client.callTool("crash")).rejects.toThrow(/exited \(code 70\) with requests unanswered/);
    await expect(client.callTool("pid")).rejects.toThrow(/exited/);
    expect(transport.restarts).toBe(0);
    expect(() => new StdioClientTransport({ command: "x", restart: { maxRestarts: -1 } })).toThrow(
      RangeError,
    );
  });
});
