import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { freePort } from "@roundtrip/test-services";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CHILD_START_WITHIN_MS,
  type ChildServer,
  runChildToExit,
  startChildServer,
} from "./support/child-server.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { startReceiver } from "./support/otlp-receiver.js";

/**
 * main.ts with METRICS_PORT set beside an OTLP collector: /metrics on that port serves the MCP SDK's
 * metrics in Prometheus text format while the spans still go to the collector. Without a collector the
 * fleet suite scrapes it with a real Prometheus.
 */
const CHILD_TEST_MS = CHILD_START_WITHIN_MS + 60_000;

let as: LocalAuthServer;
let keyDir: string;
let keyFile: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let child: ChildServer;
let token: string;
let metricsPort: number;

beforeAll(async () => {
  as = await startAuthorizationServer();
  ({ accessToken: token } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-metrics-"));
  keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
  receiver = await startReceiver();
  metricsPort = await freePort();
  child = await startChildServer(
    serverEnvironment(as, {
      REQUEST_STATE_KEY_FILE: keyFile,
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_LOGS_EXPORTER: "none",
    }),
  );
}, CHILD_TEST_MS);

afterAll(async () => {
  await child?.stop();
  await receiver?.close();
  await as?.close();
  await rm(keyDir, { recursive: true, force: true });
});

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

describe("the reference server with METRICS_PORT set", () => {
  it("serves the MCP metrics on /metrics in Prometheus format, and the spans still over OTLP", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const watch = new LeakWatch();
    const client = mcpClient(child.url, token, watch, { era: "modern" });
    try {
      await client.listTools();
      await client
        .callTool("deploy", { service: "api" }, { requestState: "v1.forged", inputResponses: {} })
        .catch(() => {});
    } finally {
      await client.close();
    }
    const text = await vi.waitFor(
      async () => {
        const body = await scrape();
        expect(body).toMatch(
          /^mcp_server_operation_duration_count\{[^}]*mcp_method_name="tools\/list"[^}]*\} 1$/m,
        );
        expect(body).toMatch(
          /^roundtrip_request_state_refusals_total\{[^}]*roundtrip_request_state_refusal_reason="malformed"[^}]*\} 1$/m,
        );
        return body;
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(text).toMatch(/^# TYPE mcp_server_operation_duration histogram$/m);
    for (const secret of [token, "v1.forged"]) expect(text).not.toContain(secret);
    await vi.waitFor(
      () =>
        expect(receiver.received.some((r) => r.path === "/v1/traces" && r.body.includes("tools/list"))).toBe(
          true,
        ),
      { timeout: 60_000, interval: 50 },
    );
    // Not on the MCP port: the scrape endpoint is its own listener.
    expect((await fetch(`${child.origin}/metrics`)).status).toBe(404);
  });

  it("stops at start, naming METRICS_PORT, when the port is already taken", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const exit = await runChildToExit(
        serverEnvironment(as, { REQUEST_STATE_KEY_FILE: keyFile, METRICS_PORT: String(port) }),
      );
      expect(exit.code).toBe(1);
      expect(exit.output).toContain(
        `cannot serve /metrics on 127.0.0.1:${port} (METRICS_HOST, METRICS_PORT)`,
      );
      expect(exit.output).toContain("EADDRINUSE");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
