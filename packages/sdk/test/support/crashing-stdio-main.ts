import { Server } from "../../src/server/index.js";
import { serveStdio } from "../../src/server/transport/stdio-server.js";

// The child process of the stdio restart tests: `pid` tells which process answered, `crash` exits
// with the call unanswered, as a server that dies on a bad input does.
const server = new Server({ name: "crashing", version: "1.0.0" })
  .onListTools(() => ({ tools: [] }))
  .onCallTool((_ctx, params) => {
    if (params.name === "crash") process.exit(70);
    return { content: [{ type: "text", text: String(process.pid) }] };
  });
await serveStdio(server);
