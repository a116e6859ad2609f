import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestAbort } from "../protocol/request-abort.js";
import { META } from "../protocol/versions.js";
import { errorOf, post, type RunningHttpServer, SseReader, startHttpServer } from "../test-support/http.js";
import { errorOf as handledErrorOf, recordingLogger, resultOf, start } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import type { AuthInfo } from "./auth-info.js";
import { Server } from "./index.js";
import type { ServerOptions } from "./server.js";
import type { SubscriptionLimits } from "./subscriptions.js";

const INFO = { name: "limits", version: "1" };
const listen = () => rpcRequest("subscriptions/listen", { notifications: { toolsListChanged: true } });

function toolServer(subscriptions: SubscriptionLimits, options: ServerOptions = {}): Server {
  return new Server(INFO, { logger: recordingLogger(), subscriptions, ...options }).onListTools(() => ({
    tools: [],
  }));
}

/** Each request is the user its `x-user` header names, so two users can be told apart. */
async function authenticate(req: IncomingMessage): Promise<AuthInfo> {
  return {
    token: "t",
    clientId: "app",
    issuer: "https://issuer.example",
    subject: String(req.headers["x-user"]),
    scopes: [],
  };
}

const running: RunningHttpServer[] = [];
const readers: SseReader[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(readers.splice(0).map((reader) => reader.close()));
  await Promise.all(running.splice(0).map((http) => http.close()));
});

async function serve(server: Server): Promise<RunningHttpServer> {
  const http = await startHttpServer(server, { authenticate });
  running.push(http);
  return http;
}

async function opened(url: string, user: string): Promise<SseReader> {
  const reader = await SseReader.open(url, listen(), { headers: { "x-user": user } });
  readers.push(reader);
  expect(await reader.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  return reader;
}

describe("subscriptions/listen limits", () => {
  it("refuses a principal's stream beyond maxPerPrincipal with 400 -32600, while another principal still listens", async () => {
    const http = await serve(toolServer({ maxPerPrincipal: 2 }));
    await opened(http.url, "ada");
    await opened(http.url, "ada");
    const refused = await post(http.url, listen(), { headers: { "x-user": "ada" } });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      code: -32600,
      message:
        "Too many subscriptions/listen streams: this principal already holds 2, the most this server allows; close one (one stream can carry every notification type) before opening another",
      data: { reason: "too_many_listen_streams", limit: 2 },
    });
    await opened(http.url, "grace");
  });

  it("gives a principal its slot back when one of its streams ends", async () => {
    const server = toolServer({ maxPerPrincipal: 1 });
    const first = new RequestAbort();
    const holding = start(server, listen(), { signal: first });
    await holding.notifications.next();
    expect(handledErrorOf(await start(server, listen()).done).code).toBe(-32600);
    first.abort();
    await holding.done;
    const again = start(server, listen());
    expect(await again.notifications.next()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
    });
    server.close();
    expect(resultOf(await again.done).resultType).toBe("complete");
  });

  it.each<[string, SubscriptionLimits]>([
    ["its maximum lifetime", { maxLifetimeMs: 25, idleTimeoutMs: Number.POSITIVE_INFINITY }],
    ["its idle timeout", { idleTimeoutMs: 25, maxLifetimeMs: Number.POSITIVE_INFINITY }],
  ])("ends a stream at %s with the listen result, over HTTP", async (_label, limits) => {
    const http = await serve(toolServer(limits));
    const reader = await opened(http.url, "ada");
    const final = await reader.next();
    expect(final).toMatchObject({ result: { resultType: "complete", _meta: { [META.serverInfo]: INFO } } });
    expect(await reader.next()).toBeUndefined();
  });

  it("restarts the idle clock with every notification it delivers", async () => {
    vi.useFakeTimers();
    const server = toolServer({ idleTimeoutMs: 1_000, maxLifetimeMs: Number.POSITIVE_INFINITY });
    const stream = start(server, listen());
    await stream.notifications.next();
    let ended = false;
    void stream.done.then(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(900);
    server.notifyToolsListChanged();
    expect(await stream.notifications.next()).toMatchObject({ method: "notifications/tools/list_changed" });
    await vi.advanceTimersByTimeAsync(900);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(ended).toBe(true);
    expect(resultOf(await stream.done).resultType).toBe("complete");
  });

  it.each<[SubscriptionLimits, RegExp]>([
    [{ maxPerPrincipal: 0 }, /maxPerPrincipal must be a whole number of streams, at least 1/],
    [{ maxPerPrincipal: 2.5 }, /maxPerPrincipal must be a whole number/],
    [{ idleTimeoutMs: 0 }, /idleTimeoutMs must be a positive number of milliseconds, or Infinity/],
    [{ maxLifetimeMs: Number.NaN }, /maxLifetimeMs must be a positive number/],
  ])("refuses the limits %j at construction", (limits, message) => {
    expect(() => new Server(INFO, { subscriptions: limits })).toThrow(message);
  });
});
