#!/usr/bin/env node
import { parseArgs } from "node:util";
import { DEFAULT_USERS } from "./accounts.js";
import { startLocalAuthServer } from "./server.js";

const USAGE = `Usage: roundtrip-local-auth --resource <mcp server URI> [--resource <uri>...] [--opaque-resource <uri>...]
                            [--downstream <audience>...] [--port <n>] [--host <address>]

Runs the development authorization server until interrupted. --resource is the MCP server's canonical
URI (e.g. http://127.0.0.1:3000/mcp); tokens for it are RFC 9068 JWTs. Development only: any password
signs in the configured users, and all state is in memory. --downstream names an API that the client
mcp-server-exchange may exchange its callers' tokens for (RFC 8693), with that audience.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      resource: { type: "string", multiple: true },
      "opaque-resource": { type: "string", multiple: true },
      downstream: { type: "string", multiple: true },
      port: { type: "string", default: "9400" },
      host: { type: "string", default: "127.0.0.1" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help || !values.resource?.length) {
    console.error(USAGE);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const server = await startLocalAuthServer({
    port,
    host: values.host,
    resource: values.resource,
    ...(values["opaque-resource"] ? { opaqueResource: values["opaque-resource"] } : {}),
    downstreams: (values.downstream ?? []).map((audience) => ({
      audience,
      clients: ["mcp-server-exchange"],
      scopes: [],
    })),
  });
  // One JSON line on stdout, so scripts can read the issuer of a server started on port 0.
  console.log(
    JSON.stringify({
      issuer: server.issuer,
      tokenEndpoint: server.tokenEndpoint,
      introspectionEndpoint: server.introspectionEndpoint,
      jwksUri: server.jwksUri,
      clients: server.clients,
      users: DEFAULT_USERS.map((user) => user.id),
    }),
  );
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
