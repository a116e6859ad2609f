import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { officialV1Server } from "../../src/client/test-support/official-v1-server.js";

// The official v1 server on stdio, for a test that spawns it as a child process.
await officialV1Server().connect(new StdioServerTransport());
