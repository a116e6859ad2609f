/**
 * A greet flow through the low-level Server's `handleRequest`, in this process: the request bodies
 * parsed from the driver's JSON text and the answers turned into JSON text, as the HTTP transport
 * does, but without sockets or HTTP framing. Run sealed, over the pass-through codec and open, it
 * splits the servers' extra CPU per flow into what the SDK around the boundary adds and what only
 * the HTTP path adds (larger bodies on the wire).
 */
import type { JsonRpcRequest } from "@roundtrip/sdk/protocol";
import type { Server } from "@roundtrip/sdk/server";
import { type BenchSealing, benchLowLevelServer } from "../targets/roundtrip-server.js";
import { toolsCall } from "../wire/mcp-request.js";
import { GREET_TOOL, GREETING, greetText, NAME_KEY } from "../wire/scenario.js";

export type ServerFlowName = `server-${BenchSealing}`;

export interface ServerFlowSubject {
  readonly name: ServerFlowName;
  readonly label: string;
  readonly flow: () => Promise<unknown>;
  readonly async: true;
}

const FIRST = toolsCall(0, { name: GREET_TOOL, arguments: { greeting: GREETING } });

async function serve(server: Server, body: string): Promise<Record<string, unknown>> {
  const handled = await server.handleRequest(JSON.parse(body) as JsonRpcRequest, {
    transport: { kind: "http", headers: {} },
  });
  // The transport's own work on the way out: the answer as JSON text.
  const text = JSON.stringify(handled.message);
  const message = handled.message as { result?: Record<string, unknown> };
  if (!message.result || text.length === 0) throw new Error(`greet failed: ${text}`);
  return message.result;
}

/** One whole greet flow, both rounds, checked as the driver checks it. */
export function serverFlow(sealing: BenchSealing): ServerFlowSubject {
  const server = benchLowLevelServer(sealing);
  let seq = 0;
  const flow = async (): Promise<unknown> => {
    const name = `Ada ${++seq}`;
    const asked = await serve(server, FIRST.body);
    const state = asked.requestState;
    if (typeof state !== "string") throw new Error("round 1: no requestState");
    const retry = toolsCall(1, {
      name: GREET_TOOL,
      arguments: { greeting: GREETING },
      inputResponses: { [NAME_KEY]: { action: "accept", content: { name } } },
      requestState: state,
    });
    const done = await serve(server, retry.body);
    const content = done.content as { text?: string }[] | undefined;
    if (content?.[0]?.text !== greetText(GREETING, name)) throw new Error("round 2: wrong greeting");
    return done;
  };
  return { name: `server-${sealing}`, label: `Server.handleRequest greet, ${sealing}`, flow, async: true };
}
