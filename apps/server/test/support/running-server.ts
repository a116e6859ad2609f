import type { KMSClientConfig } from "@aws-sdk/client-kms";
import { buildServer, loadConfig, type RoundtripServer, type SharedState } from "../../src/index.js";
import { LogCapture } from "./log-capture.js";

export interface RunningServer {
  readonly server: RoundtripServer;
  /** The MCP endpoint at the address the server listens on. */
  readonly url: string;
  readonly origin: string;
  readonly logs: LogCapture;
  /** Methods of the MCP requests that got past authentication and the request-state boundary. */
  readonly dispatched: string[];
  close(): Promise<void>;
}

/** The real app, configured from `env` like main.ts is, listening on a free port. */
export async function startServer(
  env: Record<string, string>,
  options: { kmsClientConfig?: KMSClientConfig; waitForKeys?: boolean; sharedState?: SharedState } = {},
): Promise<RunningServer> {
  const logs = new LogCapture();
  const server = await buildServer(loadConfig(env, "0.0.0-test"), {
    logStream: logs,
    ...(options.kmsClientConfig ? { kmsClientConfig: options.kmsClientConfig } : {}),
    ...(options.sharedState ? { sharedState: options.sharedState } : {}),
  });
  const dispatched: string[] = [];
  server.mcp.use(async (request, next) => {
    dispatched.push(request.method);
    return next();
  });
  const origin = await server.listen();
  if (options.waitForKeys ?? true) await Promise.all([server.keyring.ready, server.issuerChecked]);
  return {
    server,
    url: `${origin}${server.config.mcpPath}`,
    origin,
    logs,
    dispatched,
    close: () => server.close(),
  };
}
