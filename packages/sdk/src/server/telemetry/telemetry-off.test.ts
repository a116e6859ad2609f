import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as otel from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { RequestStateSecurity } from "@roundtrip/sealing";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client } from "../../client/client.js";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import { silentLogger } from "../../protocol/logger.js";
import { importOptional } from "../../protocol/telemetry/otel-api.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { McpServer, type McpServerOptions, toElicitationSchema } from "../index.js";

/**
 * Without an OpenTelemetry SDK registered (this file registers none), nothing changes: no trace
 * context leaves the client, the tokens carry no trail, and the API itself is only ever loaded lazily.
 */

const running: RunningHttpServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(running.splice(0).map((server) => server.close()));
});

const security = RequestStateSecurity.ephemeral();

async function serve(
  options: McpServerOptions = {},
): Promise<{ url: string; metas: Record<string, unknown>[] }> {
  const mcp = new McpServer(
    { name: "ops", version: "1.0.0" },
    { logger: silentLogger, requestStateSecurity: security, ...options },
  );
  const metas: Record<string, unknown>[] = [];
  mcp.server.use(async (request, next) => {
    metas.push({ ...(request.params._meta as Record<string, unknown>) });
    return next();
  });
  mcp.tool("deploy", { input: z.object({}) }, (_args, ctx) =>
    ctx.requestState === undefined
      ? inputRequired({
          inputRequests: { ok: elicitForm("Sure?", toElicitationSchema(z.object({ ok: z.boolean() }))) },
          requestState: "asked",
        })
      : "deployed",
  );
  const http = await startHttpServer(mcp.server);
  running.push(http);
  return { url: http.url, metas };
}

function client(url: string): Client {
  const made = new Client(url, {
    logger: silentLogger,
    era: "modern",
    onElicit: () => ({ action: "decline" }),
  });
  clients.push(made);
  return made;
}

describe("with no OpenTelemetry SDK registered", () => {
  it("sends no trace context and seals no trail", async () => {
    const { url, metas } = await serve();
    const outcome = await client(url).runRounds(
      { method: "tools/call", params: { name: "deploy", arguments: {} } },
      { onRound: () => ({ kind: "stop" }) },
    );
    if (outcome.kind !== "stopped") throw new Error("the tool did not ask");
    expect(metas).toHaveLength(1);
    for (const key of ["traceparent", "tracestate", "baggage"]) expect(metas[0]).not.toHaveProperty(key);
    const opened = security.openWithTrail(
      outcome.saved.result.requestState,
      { method: "tools/call", target: "deploy", arguments: {} },
      { audience: "ops" },
    );
    expect(opened.trail).toBeUndefined();
  });

  it("records through providers passed explicitly, and not at all with telemetry: false", async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const on = await serve({ telemetry: { tracerProvider } });
    const off = await serve({ telemetry: false });
    await client(on.url).listTools();
    await client(off.url).listTools();
    const names = exporter.getFinishedSpans().map((span) => `${span.name} ${span.kind}`);
    expect(names).toEqual([`server/discover ${otel.SpanKind.SERVER}`, `tools/list ${otel.SpanKind.SERVER}`]);
    await tracerProvider.shutdown();
  });

  it("answers every request when a provider throws: the span is lost, or ended, never the request", async () => {
    const broken = () => {
      throw new Error("broken provider");
    };
    const brokenTracer = await serve({ telemetry: { tracerProvider: { getTracer: broken } } });
    expect((await client(brokenTracer.url).listTools()).tools.map((tool) => tool.name)).toEqual(["deploy"]);

    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const meterProvider = { getMeter: () => ({ createHistogram: broken, createCounter: broken }) };
    const brokenMeter = await serve({ telemetry: { tracerProvider, meterProvider } });
    const mcp = client(brokenMeter.url);
    const forged = await mcp
      .callTool("deploy", {}, { requestState: "v1.forged", inputResponses: {} })
      .catch((error: unknown) => error);
    expect(String(forged)).toContain("Invalid or expired requestState");
    const outcome = await mcp.runRounds(
      { method: "tools/call", params: { name: "deploy", arguments: {} } },
      { onRound: () => ({ kind: "stop" }) },
    );
    expect(outcome.kind).toBe("stopped");
    const ended = exporter.getFinishedSpans().filter((span) => span.name === "tools/call deploy");
    expect(ended).toHaveLength(2);
    await tracerProvider.shutdown();
  });

  it("loads without the API installed: nothing imports it but one lazy, failure-tolerant import", async () => {
    await expect(importOptional("@opentelemetry/api-that-is-not-installed")).resolves.toBeUndefined();
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const sources = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
      (path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.includes("test-support"),
    );
    const runtimeImports = sources.flatMap((path) => {
      const text = readFileSync(join(root, path), "utf8");
      const statements = text.match(/^import\s[^;]*?from\s+"@opentelemetry\/[^"]+";/gms) ?? [];
      return statements.filter((statement) => !statement.startsWith("import type")).map(() => path);
    });
    expect(runtimeImports).toEqual([]);
    const lazy = sources.filter((path) =>
      readFileSync(join(root, path), "utf8").includes('"@opentelemetry/api")'),
    );
    expect(lazy).toEqual([join("protocol", "telemetry", "otel-api.ts")]);
    const manifest = JSON.parse(readFileSync(join(root, "..", "package.json"), "utf8"));
    expect(manifest.peerDependenciesMeta["@opentelemetry/api"]).toEqual({ optional: true });
    expect(manifest.dependencies["@opentelemetry/api"]).toBeUndefined();
  });
});
