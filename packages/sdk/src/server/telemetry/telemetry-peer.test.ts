import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { silentLogger } from "../../protocol/logger.js";
import { post } from "../../test-support/http.js";
import { rpcRequest } from "../../test-support/messages.js";
import { mcpFastify } from "../fastify.js";
import { McpServer } from "../index.js";

/**
 * The server span's peer: the socket's address and port, or with a trusted proxy in front (Fastify's
 * trustProxy) the address the proxy names, then without a port, since the socket's is the proxy's.
 */

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function served(trustProxy: string | false): Promise<{ url: string; exporter: InMemorySpanExporter }> {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const mcp = new McpServer(
    { name: "ops", version: "1.0.0" },
    { logger: silentLogger, telemetry: { tracerProvider } },
  );
  mcp.tool("status", { input: z.object({}) }, () => "up");
  const app = Fastify({ trustProxy });
  apps.push(app);
  await app.register(mcpFastify, { server: mcp });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${address}/mcp`, exporter };
}

function listSpan(exporter: InMemorySpanExporter) {
  const spans = exporter.getFinishedSpans().filter((span) => span.name === "tools/list");
  expect(spans).toHaveLength(1);
  return spans[0];
}

describe("the server span's peer over mcpFastify", () => {
  it("is the socket's address and port with no proxy trusted, whatever X-Forwarded-For says", async () => {
    const { url, exporter } = await served(false);
    const reply = await post(url, rpcRequest("tools/list"), {
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    expect(reply.body).toContain(`"result"`);
    const span = listSpan(exporter);
    expect(span?.attributes["client.address"]).toBe("127.0.0.1");
    expect(span?.attributes["client.port"]).toEqual(expect.any(Number));
    expect(span?.attributes["network.protocol.version"]).toBe("1.1");
  });

  it("is the address a trusted proxy names, without the proxy's port", async () => {
    const { url, exporter } = await served("127.0.0.1");
    const reply = await post(url, rpcRequest("tools/list"), {
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    expect(reply.body).toContain(`"result"`);
    const span = listSpan(exporter);
    expect(span?.attributes["client.address"]).toBe("203.0.113.7");
    expect(span?.attributes["client.port"]).toBeUndefined();
    expect(span?.attributes["network.transport"]).toBe("tcp");
  });
});
