import { Client, McpServer, serveStdio } from "@roundtrip/sdk";
import * as z from "zod";

// One file, both ends: started with "serve" it is the server, otherwise the client that spawns it.
if (process.argv[2] === "serve") {
  const mcp = new McpServer({ name: "calc", version: "1.0.0" });
  mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  await serveStdio(mcp); // until the client closes stdin
} else {
  const client = new Client({ command: process.execPath, args: [process.argv[1] as string, "serve"] });
  const result = await client.callTool("add", { a: 2, b: 3 });
  console.log(JSON.stringify(result.content)); // [{"type":"text","text":"5"}]
  await client.close();
}
