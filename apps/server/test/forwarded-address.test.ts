import { request } from "node:http";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { LATEST_PROTOCOL_VERSION } from "@roundtrip/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * Whose address the per-address rate limit counts. The server listens on 127.0.0.1 and trusts one
 * proxy, 127.0.0.2: on Linux every 127/8 address is the loopback interface, so a request can leave
 * from either, and the server sees a real peer address on its socket for each.
 */

const PROXY = "127.0.0.2";
const CLIENT = "127.0.0.1";
const ADDRESS_MAX = 3;

let as: LocalAuthServer;
let app: RunningServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(
    serverEnvironment(as, {
      TRUST_PROXY: PROXY,
      RATE_LIMIT_ADDRESS_MAX: String(ADDRESS_MAX),
      RATE_LIMIT_WINDOW_MS: "600000",
    }),
  );
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

/** A tokenless server/discover from `from`, claiming to forward for `forwardedFor`; its status. */
function statusOf(from: string, forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(app.url, {
      method: "POST",
      localAddress: from,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        "mcp-method": "server/discover",
        "x-forwarded-for": forwardedFor,
      },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    outgoing.end('{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}');
  });
}

async function statuses(from: string, forwardedFor: (i: number) => string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push(await statusOf(from, forwardedFor(i)));
  return seen;
}

describe("X-Forwarded-For is believed only from the configured proxies", () => {
  it("counts requests sent straight to the server by their real address, whatever they claim", async () => {
    const seen = await statuses(CLIENT, (i) => `203.0.113.${i + 1}`, ADDRESS_MAX + 2);
    expect(seen).toEqual([401, 401, 401, 429, 429]);
  });

  it("counts requests through the trusted proxy by the address it forwards for", async () => {
    // Each forwarded client has its own budget: none of these is limited.
    expect(await statuses(PROXY, (i) => `198.51.100.${i + 1}`, ADDRESS_MAX + 2)).toEqual(
      Array(ADDRESS_MAX + 2).fill(401),
    );
    // One forwarded client spends its own.
    expect(await statuses(PROXY, () => "192.0.2.7", ADDRESS_MAX + 1)).toEqual([401, 401, 401, 429]);
  });
});
