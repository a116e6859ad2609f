/**
 * Local development stack in one process: the development authorization server (@roundtrip/local-auth,
 * in memory, users alice and bob) and this server trusting it, both on loopback. Prints ready-to-use
 * access tokens. Nothing here is fit for production: the tokens are printed on purpose.
 *
 *   pnpm --filter @roundtrip/server dev:local
 */
import { startLocalAuthServer } from "@roundtrip/local-auth";
import { buildServer, closeOnSignals, loadConfig } from "../src/index.js";
import { packageVersion } from "../src/version.js";

const port = Number(process.env.PORT ?? 3000);
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}/mcp`;
const authorization = await startLocalAuthServer({
  resource: publicUrl,
  port: Number(process.env.AUTH_PORT ?? 9000),
});
const config = loadConfig(
  {
    LOG_FORMAT: "pretty",
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    OAUTH_ISSUER: authorization.issuer,
  },
  await packageVersion(),
);
const server = await buildServer(config);
closeOnSignals(server, { timeoutMs: config.shutdownTimeoutMs });
await server.listen();
await server.keyring.ready;

const machine = await authorization.clientCredentialsToken("mcp-machine", "mcp:tools mcp:deploy");
const alice = await authorization.authorizationCodeToken("alice", "mcp:tools mcp:deploy");
process.stdout.write(
  [
    "",
    `MCP endpoint:          ${publicUrl}`,
    `Authorization server:  ${authorization.issuer} (development only, tokens last 5 minutes)`,
    "",
    "Access tokens (development only):",
    `  alice via mcp-interactive:   ${alice.accessToken}`,
    `  the mcp-machine client:      ${machine}`,
    "",
  ].join("\n"),
);
