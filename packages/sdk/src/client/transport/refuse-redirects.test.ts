import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../client.js";
import { discoverResult, type HttpPeer, json, serveScripted } from "../test-support/http-peer.js";
import { RedirectRefusedError } from "./http-errors.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function track(peer: Promise<HttpPeer>): Promise<HttpPeer> {
  const started = await peer;
  peers.push(started);
  return started;
}

describe("redirects of MCP requests", () => {
  it.each([307, 308, 302])("refuses a %i and sends nothing to its target", async (status) => {
    const elsewhere = await track(serveScripted(({ body }, res) => json(res, 200, discoverResult(body.id))));
    const peer = await track(
      serveScripted(({ body }, res) => {
        if (body.method === "server/discover") return json(res, 200, discoverResult(body.id));
        res.writeHead(status, { location: elsewhere.url }).end();
      }),
    );
    const client = new Client(peer.url);
    const error = await client
      .callTool("t", {}, { requestState: "sealed-state", inputResponses: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectRefusedError);
    expect((error as RedirectRefusedError).status).toBe(status);
    expect((error as RedirectRefusedError).location).toBe(elsewhere.url);
    expect((error as Error).message).toContain("actual MCP endpoint");
    expect(elsewhere.seen).toHaveLength(0);
  });

  it("refuses a redirect of the probe, so connect fails with it", async () => {
    const elsewhere = await track(serveScripted(({ body }, res) => json(res, 200, discoverResult(body.id))));
    const peer = await track(
      serveScripted((_seen, res) => {
        res.writeHead(308, { location: elsewhere.url }).end();
      }),
    );
    await expect(new Client(peer.url).connect()).rejects.toBeInstanceOf(RedirectRefusedError);
    expect(elsewhere.seen).toHaveLength(0);
  });
});
