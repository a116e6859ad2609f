import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DownstreamTokens } from "@roundtrip/sdk/resource-server";
import { DownstreamTokenError } from "@roundtrip/sdk/resource-server";
import { ToolError } from "@roundtrip/sdk/server";
import { refusedPort } from "@roundtrip/test-services";
import { afterEach, describe, expect, it } from "vitest";
import { deployerRollout } from "./rollout.js";

const request = { release: "rel-1", service: "api", env: "staging" };
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A deployer stand-in on port 0 that records what reached it and answers with `answer`. */
async function deployer(answer: (req: IncomingMessage) => { status: number; body?: unknown } | undefined) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    const reply = answer(req);
    if (reply)
      res
        .writeHead(reply.status, { "content-type": "application/json" })
        .end(JSON.stringify(reply.body ?? {}));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

// The exchange has its own tests; here the token source only says which token, or which refusal.
const exchanged = (result: () => Promise<string>) => ({ tokenFor: result }) as unknown as DownstreamTokens;
const token = exchanged(async () => "downstream-token");

async function failureOf(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("deployerRollout", () => {
  it("posts the release under the base URL's own path, with the exchanged token", async () => {
    const api = await deployer(() => ({ status: 201 }));
    const rollout = deployerRollout({ url: `${api.url}/api`, audience: "deployer", tokens: token });
    await rollout(request, undefined);
    expect(api.seen).toEqual(["POST /api/rollouts Bearer downstream-token"]);
  });

  it("names the deployer's refusal", async () => {
    const api = await deployer(() => ({
      status: 403,
      body: { error: "forbidden", error_description: "no" },
    }));
    const rollout = deployerRollout({ url: api.url, audience: "deployer", tokens: token });
    const failure = await failureOf(rollout(request, undefined));
    expect(failure.message).toMatch(
      /^Release rel-1 was approved, but the deployer refused to roll it out \(HTTP 403 forbidden: no\); nothing was rolled out/,
    );
  });

  it("says the deployer could not be reached, or did not answer in time, and what to do", async () => {
    const api = await deployer(() => undefined);
    const slow = deployerRollout({ url: api.url, audience: "deployer", tokens: token, timeoutMs: 200 });
    expect((await failureOf(slow(request, undefined))).message).toMatch(
      /the deployer at http:\/\/127\.0\.0\.1:\d+ did not answer within 200 ms; .*call deploy again for a new one/,
    );
    const gone = deployerRollout({
      url: `http://127.0.0.1:${await refusedPort()}`,
      audience: "deployer",
      tokens: token,
    });
    expect((await failureOf(gone(request, undefined))).message).toMatch(
      /could not be reached \(.*ECONNREFUSED.*\); check that it runs/,
    );
  });

  it("turns a failed exchange into a tool error naming it, and sends nothing", async () => {
    const api = await deployer(() => ({ status: 201 }));
    const refused = exchanged(async () => {
      throw new DownstreamTokenError("refused", "the authorization server refused the exchange");
    });
    const rollout = deployerRollout({ url: api.url, audience: "deployer", tokens: refused });
    const failure = await failureOf(rollout(request, undefined));
    expect(failure.message).toContain(
      "no token for the deployer: the authorization server refused the exchange",
    );
    expect(api.seen).toEqual([]);
  });

  it("gives up when the call's own signal aborts, with the caller's reason", async () => {
    const api = await deployer(() => undefined);
    const rollout = deployerRollout({ url: api.url, audience: "deployer", tokens: token });
    const call = new AbortController();
    const outcome = rollout(request, undefined, call.signal).catch((error: unknown) => error);
    call.abort(new Error("the client went away"));
    expect(await outcome).toMatchObject({ message: "the client went away" });
  });
});
