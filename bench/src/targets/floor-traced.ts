import { context, metrics, type Span, SpanKind, trace } from "@opentelemetry/api";
import type { FastifyInstance } from "fastify";
import { discardingTelemetry } from "./discarding-telemetry.js";
import { floorApp } from "./floor.js";

declare module "fastify" {
  interface FastifyRequest {
    benchSpan: Span | null;
    benchStarted: number;
  }
}

/**
 * What the OpenTelemetry SDK itself costs per request, with no MCP in it: the floor's route with one
 * SERVER span (as many attributes as Roundtrip's, set at its start and its end, the request's work run
 * in its context) and one duration histogram record per request, under the traced row's SDK setup.
 * Tracing's cost on Roundtrip is read against this: the part no instrumentation can avoid.
 */
export function tracedFloorApp(): FastifyInstance {
  discardingTelemetry();
  const tracer = trace.getTracer("roundtrip-bench");
  const duration = metrics
    .getMeter("roundtrip-bench")
    .createHistogram("bench.server.duration", { unit: "s" });
  const shape = Object.freeze({
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": "greet",
    "gen_ai.operation.name": "execute_tool",
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "network.protocol.version": "1.1",
    "mcp.protocol.version": "2026-07-28",
  });
  const outcome = Object.freeze({ ...shape, "mcp.result.type": "complete" });
  const app = floorApp();
  app.decorateRequest("benchSpan", null);
  app.decorateRequest("benchStarted", 0);
  app.addHook("onRequest", (request, _reply, done) => {
    request.benchStarted = performance.now();
    const span = tracer.startSpan("tools/call greet", { kind: SpanKind.SERVER, attributes: shape });
    span.setAttributes({
      "jsonrpc.request.id": String(request.id),
      "client.address": request.ip,
      "client.port": request.socket.remotePort ?? 0,
    });
    request.benchSpan = span;
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook("onResponse", (request, _reply, done) => {
    const span = request.benchSpan;
    span?.setAttributes({ "mcp.result.type": "complete", "roundtrip.flow.id": "0123456789abcdef" });
    span?.end();
    duration.record((performance.now() - request.benchStarted) / 1000, outcome);
    done();
  });
  return app;
}
