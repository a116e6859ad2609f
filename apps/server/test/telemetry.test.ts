import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CHILD_START_WITHIN_MS, type ChildServer, startChildServer } from "./support/child-server.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type Received, startReceiver } from "./support/otlp-receiver.js";

/**
 * main.ts with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real HTTP receiver: the MCP spans and metrics
 * arrive there as OTLP/JSON, and the log lines written inside a request carry its trace and span ids.
 */

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

function spansIn(received: Received[]): OtlpSpan[] {
  return received
    .filter((export_) => export_.path === "/v1/traces")
    .flatMap((export_) => {
      const body = JSON.parse(export_.body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    });
}

const CHILD_TEST_MS = CHILD_START_WITHIN_MS + 60_000;

let as: LocalAuthServer;
let keyDir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let child: ChildServer;
let token: string;

beforeAll(async () => {
  as = await startAuthorizationServer();
  ({ accessToken: token } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-telemetry-"));
  const keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
  receiver = await startReceiver();
  child = await startChildServer(
    serverEnvironment(as, {
      REQUEST_STATE_KEY_FILE: keyFile,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
      OTEL_SERVICE_NAME: "roundtrip-telemetry-test",
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

describe("the reference server with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  it("exports the MCP spans and metrics over OTLP, and logs each request's trace ids", {
    timeout: CHILD_TEST_MS,
  }, async () => {
    const watch = new LeakWatch();
    const client = mcpClient(child.url, token, watch, { era: "modern" });
    try {
      await client.listTools();
      // A forged requestState: the boundary's warning is written inside the request's span.
      await client
        .callTool("deploy", { service: "api" }, { requestState: "v1.forged", inputResponses: {} })
        .catch(() => {});
    } finally {
      await client.close();
    }

    const span = await vi.waitFor(
      () => {
        const found = spansIn(receiver.received).find((s) => s.name === "tools/call deploy");
        if (!found) throw new Error("no tools/call span exported yet");
        return found;
      },
      { timeout: 60_000, interval: 50 },
    );
    expect(span.kind).toBe(2); // SPAN_KIND_SERVER in OTLP
    const attributes = Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue]));
    expect(attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "deploy",
      "rpc.response.status_code": "-32602",
    });
    expect(spansIn(receiver.received).some((s) => s.name === "tools/list")).toBe(true);
    const exported = receiver.received.map((r) => r.body).join("\n");
    expect(exported).toContain("roundtrip-telemetry-test");

    const warning = await child.waitForLog(
      (line) => typeof line.msg === "string" && line.msg.startsWith("requestState rejected"),
      "the requestState warning",
    );
    expect(warning.trace_id).toBe(span.traceId);
    expect(warning.span_id).toBe(span.spanId);

    await vi.waitFor(
      () => {
        const metrics = receiver.received.filter((r) => r.path === "/v1/metrics").map((r) => r.body);
        expect(metrics.join("\n")).toContain("mcp.server.operation.duration");
        expect(metrics.join("\n")).toContain("roundtrip.request_state.refusals");
      },
      { timeout: 60_000, interval: 50 },
    );
    for (const secret of [token, "v1.forged"]) expect(exported).not.toContain(secret);
  });
});
