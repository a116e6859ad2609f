import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { refusedPort } from "../src/index.js";
import { expectRefused } from "../src/refused-port.js";

describe("refusedPort", () => {
  it("is below the range the kernel hands out, so no listen(0) and no connection's source port is ever it", async () => {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    const port = await refusedPort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(low ?? 0);
  });

  it("refuses every connection, many in a row", async () => {
    const port = await refusedPort();
    // The check fails on anything but a refusal, as the last test shows where something listens.
    for (let attempt = 0; attempt < 200; attempt++) await expectRefused(port);
  });

  it("refuses fetch the same way: the port is not one fetch itself forbids", async () => {
    const error = await fetch(`http://127.0.0.1:${await refusedPort()}/`).catch((e: unknown) => e);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ECONNREFUSED");
  });

  it("fails, naming the port and what to do, where something listens", async () => {
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const { port } = listener.address() as { port: number };
    try {
      await expect(expectRefused(port)).rejects.toThrow(
        `127.0.0.1:${port} should refuse connections, for tests of a server that does not run, but something accepted a connection there: stop what listens on port ${port} of this machine`,
      );
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
