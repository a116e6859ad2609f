import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeHandler } from "@roundtrip/sdk";
import { LOOPBACK_HOST_NAMES, type Server } from "@roundtrip/sdk/server";
import { createFixtureServer, type FixtureOptions } from "./server.js";

export interface FixtureListenOptions extends FixtureOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where the MCP endpoint lives. Default `/mcp`. */
  path?: string;
}

export interface RunningFixture {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves the fixture over Streamable HTTP on node:http. It listens on loopback, so it accepts only
 * loopback Host names and Origins: that is the DNS-rebinding defence a local server needs.
 */
export async function startFixture(options: FixtureListenOptions = {}): Promise<RunningFixture> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const server = createFixtureServer(options);
  const handle = createNodeHandler(server, { allowedHosts: LOOPBACK_HOST_NAMES });
  const http = createServer((req, res) => {
    if (new URL(req.url ?? "/", "http://fixture.invalid").pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not found; the MCP endpoint is ${path}`);
      return;
    }
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    server,
    close: async () => {
      // Open subscriptions/listen streams end first, so closing the listener does not wait on them.
      server.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
