import { ForgetfulStoreError } from "@roundtrip/sdk/redis";
import { buildServer, type RoundtripServer } from "./build-server.js";
import { ConfigError, loadConfig } from "./config/load-config.js";
import type { ServerConfig } from "./config/server-config.js";
import { closeOnSignals } from "./shutdown.js";
import { type RunningTelemetry, startTelemetry } from "./telemetry/start-telemetry.js";
import { packageVersion } from "./version.js";

// An empty AWS_REGION is a variable left blank (a template's placeholder), not a region: the AWS SDK
// would use it as one and fail far from the cause, so it counts as unset, like every empty variable here.
if (process.env.AWS_REGION === "") delete process.env.AWS_REGION;

async function configuration(): Promise<ServerConfig> {
  try {
    return loadConfig(process.env, await packageVersion());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // No logger exists yet, and this message is for the person starting the server.
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

async function build(config: ServerConfig): Promise<RoundtripServer> {
  try {
    return await buildServer(config);
  } catch (error) {
    if (!(error instanceof ForgetfulStoreError)) throw error;
    // The SDK names its options; an operator of this server sets variables.
    const message = error.message
      .replace("(allowForgetful)", "with ROUNDTRIP_ALLOW_FORGETFUL_STORE=1")
      .replaceAll("replicaAcks", "REDIS_REPLICA_ACKS");
    process.stderr.write(`${message}\n`);
    process.exit(2);
  }
}

async function telemetryFor(config: ServerConfig): Promise<RunningTelemetry | undefined> {
  try {
    return await startTelemetry(process.env, config.serverName, config.metrics);
  } catch (error) {
    // A metrics port already taken: said in one line, before anything else has started.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

const config = await configuration();
// Before the server is built, so that its first request is already traced.
const telemetry = await telemetryFor(config);
const server = await build(config);
closeOnSignals(server, {
  timeoutMs: config.shutdownTimeoutMs,
  // The spans and metrics still buffered go out before the process does.
  exit: (code) => {
    void Promise.resolve(telemetry?.shutdown())
      .catch(() => {})
      .finally(() => process.exit(code));
  },
});

const address = await server.listen();
server.app.log.info(
  {
    address,
    publicUrl: config.publicUrl,
    serverName: config.serverName,
    keySource: config.keys.kind,
    ...server.sharedState.description,
  },
  "listening",
);

// Fail closed: without the configured keys no round can be sealed, so stop and let the supervisor see it.
server.keyring.ready.catch(async () => {
  server.app.log.fatal({}, "cannot serve without the configured request-state keys; exiting");
  await server.close().catch(() => {});
  process.exit(1);
});
