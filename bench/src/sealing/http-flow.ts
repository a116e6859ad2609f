/**
 * The greet flow over real HTTP on loopback, server and client in this one process, one flow at a
 * time: the bench target's whole path (node:http, createNodeHandler, the boundary) without a second
 * process or a closed loop of 16. Its CPU time includes the client's, which is the same for every
 * server but for the bytes of the longer token, so differences between servers are theirs.
 */
import { FLOWS } from "../driver/flows.js";
import { createPostClient, type PostClient } from "../driver/http-client.js";
import { type ServerKind, startServer } from "../targets/catalog.js";
import { BENCH_HOST, type Listening } from "../targets/listen.js";

export type HttpFlowName = `http-${ServerKind}`;

export interface HttpFlowSubject {
  readonly name: HttpFlowName;
  readonly label: string;
  readonly flow: () => Promise<unknown>;
  readonly async: true;
  close(): Promise<void>;
}

export async function httpFlow(kind: ServerKind): Promise<HttpFlowSubject> {
  const server: Listening = await startServer(kind);
  const client: PostClient = createPostClient(BENCH_HOST, server.port, { sockets: 1, timeoutMs: 10_000 });
  let seq = 0;
  return {
    name: `http-${kind}`,
    label: `HTTP greet, ${kind}`,
    flow: () => FLOWS.greet(client, ++seq),
    async: true,
    async close() {
      client.close();
      await server.close();
    },
  };
}
