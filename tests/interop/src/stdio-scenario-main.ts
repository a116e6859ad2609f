import { serveStdio } from "@roundtrip/sdk";
import { scenarioMcpServer } from "./roundtrip-mcp-server.js";

/**
 * The bridge scenario server as its own process on stdio, the way hosts launch local servers. Each
 * handler run is reported on stderr (one name a line): stdout belongs to the protocol.
 */
const { mcp } = scenarioMcpServer((name) => process.stderr.write(`${name}\n`));
await serveStdio(mcp);
