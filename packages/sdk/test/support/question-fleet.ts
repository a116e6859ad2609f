import { RequestStateSecurity } from "@roundtrip/sealing";
import { createClient } from "redis";
import * as z from "zod";
import { elicitForm, inputRequired } from "../../src/protocol/input-required.js";
import { RedisNotificationBus } from "../../src/server/fleet/redis/redis-notification-bus.js";
import { RedisSessionRegistry } from "../../src/server/fleet/redis/redis-session-registry.js";
import { fleetCodec } from "../../src/server/fleet/test-support/fleet-codec.js";
import { McpServer } from "../../src/server/index.js";
import { RawStream } from "../../src/server/legacy/test-support/raw-session.js";
import { toElicitationSchema } from "../../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../../src/server/mcp-server/input-responses.js";
import { FLEET_KEYS } from "../../src/server/mcp-server/test-support/once.js";
import { type RunningHttpServer, startHttpServer } from "../../src/test-support/http.js";
import { type LogRecord, recordingLogger } from "../../src/test-support/in-process.js";

const Confirm = z.object({ confirm: z.boolean() });

export interface QuestionInstance extends RunningHttpServer {
  mcp: McpServer;
  logs: LogRecord[];
}

/**
 * One instance of a fleet on a real Redis, serving `deploy`, which asks "Deploy to <env>?" and deploys
 * only on a yes: its own connections, the bus on `<fleet>:bus` and the sessions under `<fleet>:session:`.
 * `closers` receives what the test must close, in the order it was opened.
 */
export async function questionInstance(
  redisUrl: string,
  fleet: string,
  closers: (() => unknown)[],
): Promise<QuestionInstance> {
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  const logger = recordingLogger();
  const bus = new RedisNotificationBus({ client, channel: `${fleet}:bus`, codec: fleetCodec(), logger });
  await bus.ready();
  const mcp = new McpServer(
    { name: "deployer", version: "1.0.0" },
    {
      bus,
      logger,
      requestStateSecurity: new RequestStateSecurity({ keys: FLEET_KEYS }),
      legacy: { sessions: new RedisSessionRegistry({ client, prefix: `${fleet}:session:` }) },
    },
  );
  mcp.tool("deploy", { input: z.object({ env: z.string() }) }, ({ env }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
    if (!answer) {
      return inputRequired({
        inputRequests: { confirm: elicitForm(`Deploy to ${env}?`, toElicitationSchema(Confirm)) },
      });
    }
    return answer.confirm ? `Deployed to ${env}` : `Not deployed to ${env}`;
  });
  const http = await startHttpServer(mcp.server);
  closers.push(
    () => client.destroy(),
    () => bus.close(),
    () => http.close(),
  );
  return Object.assign(http, { mcp, logs: logger.records });
}

export type Message = Record<string, unknown>;

/**
 * One call of a 2025-era session, its SSE answer read message by message. At most one read is under
 * way: a read that lost a race is the one the next `next()` returns, so no message is skipped.
 */
export class StreamedCall {
  readonly label: string;
  readonly #stream: RawStream;
  #reading: Promise<Message | undefined> | undefined;

  private constructor(label: string, stream: RawStream) {
    this.label = label;
    this.#stream = stream;
  }

  /** POSTs `deploy` for `env` to `url` on the session, as request `id`. */
  static async deploy(
    url: string,
    headers: Record<string, string>,
    id: number,
    env: string,
  ): Promise<StreamedCall> {
    const message = {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "deploy", arguments: { env } },
    };
    return new StreamedCall(env, await RawStream.post(url, message, headers));
  }

  next(): Promise<Message | undefined> {
    this.#reading ??= this.#stream.next().then((event) => {
      this.#reading = undefined;
      return event?.message;
    });
    return this.#reading;
  }

  close(): void {
    this.#stream.close();
  }
}

/** The call whose stream carries the next message, with that message. */
export function firstToSpeak(...calls: StreamedCall[]): Promise<[string, Message | undefined]> {
  return Promise.race(
    calls.map((call) =>
      call.next().then((message) => [call.label, message] as [string, Message | undefined]),
    ),
  );
}

/** The client's answer to the server's question `id`: accepting, with confirm set to `confirm`. */
export function confirmation(id: unknown, confirm: boolean): Message {
  return { jsonrpc: "2.0", id, result: { action: "accept", content: { confirm } } };
}
