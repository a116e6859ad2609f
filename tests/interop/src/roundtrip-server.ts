import { createNodeHandler, McpError } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { Server } from "@roundtrip/sdk/server";
import { PROMPT, TEMPLATE, TOOL } from "./ask-flow.js";
import { type Listening, listen } from "./listen.js";
import { askStep as step } from "./roundtrip-ask.js";

/**
 * The ask flow on Roundtrip's low-level Server behind createNodeHandler on node:http. Nothing seals the
 * state here (that is the boundary middleware's job, tested elsewhere): it travels as plain JSON, which
 * is exactly what a client must echo byte for byte.
 */

export async function startRoundtripServer(): Promise<Listening> {
  const server = new Server({ name: "roundtrip-ask", version: "0.1.0" }, { logger: silentLogger });
  server.onListTools(() => ({
    tools: [
      {
        name: TOOL,
        inputSchema: { type: "object", properties: { rounds: { type: "integer" } }, required: ["rounds"] },
      },
    ],
  }));
  server.onCallTool((_ctx, params) => {
    if (params.name !== TOOL) throw McpError.invalidParams(`Unknown tool: ${params.name}`);
    const result = step(Number(params.arguments?.rounds), params);
    return "pending" in result ? result.pending : { content: [{ type: "text", text: result.done }] };
  });
  server.onListPrompts(() => ({
    prompts: [{ name: PROMPT, arguments: [{ name: "rounds", required: true }] }],
  }));
  server.onGetPrompt((_ctx, params) => {
    if (params.name !== PROMPT) throw McpError.invalidParams(`Unknown prompt: ${params.name}`);
    const result = step(Number(params.arguments?.rounds), params);
    return "pending" in result
      ? result.pending
      : { messages: [{ role: "user", content: { type: "text", text: result.done } }] };
  });
  server.onListResourceTemplates(() => ({ resourceTemplates: [{ uriTemplate: TEMPLATE, name: "ask" }] }));
  server.onReadResource((_ctx, params) => {
    const match = /^ask:\/\/(\d+)$/.exec(params.uri);
    if (!match) throw McpError.invalidParams(`Resource not found: ${params.uri}`, { uri: params.uri });
    const result = step(Number(match[1]), params);
    return "pending" in result ? result.pending : { contents: [{ uri: params.uri, text: result.done }] };
  });
  const handle = createNodeHandler(server);
  return listen((req, res) => handle(req, res));
}
