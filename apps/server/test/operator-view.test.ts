import { createServer, type Server } from "node:http";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { McpError } from "@roundtrip/sdk";
import { callTool } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { prettyColours } from "../src/logging/create-logger.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let alice: string;
const watch = new LeakWatch();
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  alice = (await as.authorizationCodeToken("alice", "mcp:tools")).accessToken;
});

afterAll(async () => {
  for (const close of closers) await close();
  await app?.close();
  await as?.close();
});

async function readiness(server: RunningServer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.origin}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("every log line of a request names it", () => {
  it("carries the request id, the MCP method and the tool, on the SDK's own lines too", async () => {
    const refused = await mcpClient(app.url, alice, watch)
      .manualRounds.callTool(
        "list_workspace",
        {},
        { allowInputRequired: true, requestState: "v1.not-a-sealed-state" },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    const rejection = app.logs.lines().find((line) => String(line.msg).startsWith("requestState rejected"));
    expect(rejection).toMatchObject({ mcpMethod: "tools/call", mcpTarget: "list_workspace" });
    expect(typeof rejection?.reqId).toBe("string");
    const completed = app.logs
      .lines()
      .find((line) => line.msg === "request completed" && line.reqId === rejection?.reqId);
    expect(completed).toMatchObject({ mcpMethod: "tools/call", mcpTarget: "list_workspace" });
    // Once per line, not once from Fastify's binding and again from the scope.
    const raw = app.logs
      .text()
      .split("\n")
      .find((line) => line.includes('"request completed"') && line.includes(String(rejection?.reqId)));
    expect(raw?.match(/"reqId"/g)).toHaveLength(1);
  });

  /** The SDK's line and Fastify's closing line of the request whose requestState was refused. */
  function refusedRequestLines(): { rejection: Record<string, unknown>; completed: Record<string, unknown> } {
    const rejection = app.logs
      .lines()
      .findLast((line) => String(line.msg).startsWith("requestState rejected")) as Record<string, unknown>;
    expect(typeof rejection?.reqId).toBe("string");
    const completed = app.logs
      .lines()
      .find((line) => line.msg === "request completed" && line.reqId === rejection.reqId) as Record<
      string,
      unknown
    >;
    return { rejection, completed };
  }

  it("names the prompt of a prompts/get", async () => {
    const refused = await mcpClient(app.url, alice, watch)
      .manualRounds.getPrompt(
        "incident_brief",
        { service: "api" },
        { allowInputRequired: true, requestState: "v1.not-a-sealed-state" },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    const { rejection, completed } = refusedRequestLines();
    expect(rejection).toMatchObject({ mcpMethod: "prompts/get", mcpTarget: "incident_brief" });
    expect(completed).toMatchObject({ mcpMethod: "prompts/get", mcpTarget: "incident_brief" });
  });

  it("names the URI of a resources/read", async () => {
    const refused = await mcpClient(app.url, alice, watch)
      .manualRounds.readResource("status://checkout", {
        allowInputRequired: true,
        requestState: "v1.not-a-sealed-state",
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    const { rejection, completed } = refusedRequestLines();
    expect(rejection).toMatchObject({ mcpMethod: "resources/read", mcpTarget: "status://checkout" });
    expect(completed).toMatchObject({ mcpMethod: "resources/read", mcpTarget: "status://checkout" });
  });

  it("colours pretty logs for a terminal only, and never with NO_COLOR", () => {
    expect(prettyColours({}, true)).toBe(true);
    expect(prettyColours({}, false)).toBe(false);
    expect(prettyColours({ NO_COLOR: "1" }, true)).toBe(false);
    expect(prettyColours({ NO_COLOR: "" }, true)).toBe(true);
  });
});

/**
 * An authorization server's address that refuses every connection while `down` (the socket is reset
 * as it arrives) and otherwise serves an empty key set: a port no other test can take meanwhile.
 */
async function switchableIssuer(): Promise<{ url: string; down: boolean; close(): Promise<void> }> {
  const state = { down: true };
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}'),
  );
  server.on("connection", (socket) => {
    if (state.down) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const issuer = {
    url: `http://127.0.0.1:${port}`,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
      if (value) server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  closers.push(issuer.close);
  return issuer;
}

/** What fetch reports for a connection the other side resets on arrival. */
const CLOSED = /other side closed|ECONNRESET|socket hang up/;

describe("an authorization server that does not answer", () => {
  it("keeps /readyz at 503 naming its URL and the cause, and answers authenticated calls 503, not 500", async () => {
    const { url: issuer } = await switchableIssuer();
    const server = await startServer(serverEnvironment(as, { OAUTH_ISSUER: issuer }));
    closers.push(() => server.close());
    const ready = await readiness(server);
    expect(ready).toEqual({
      status: 503,
      body: { status: "authorization server unreachable", issuer, reason: expect.stringMatching(CLOSED) },
    });
    const reply = await callTool(server.url, "list_workspace", { token: alice });
    expect(reply.status).toBe(503);
    expect(JSON.stringify(reply.body)).toContain(`the authorization server ${issuer} could not be reached`);
    const logged = server.logs.lines().find((line) => line.authorizationServer === issuer);
    expect(logged).toMatchObject({ reason: expect.stringMatching(CLOSED) });
    expect(String(logged?.msg)).toContain("check OAUTH_ISSUER");
  });

  it("turns ready when it comes up, and unready again when a verification cannot reach it", async () => {
    const issuer = await switchableIssuer();
    const server = await startServer(
      serverEnvironment(as, { OAUTH_ISSUER: issuer.url, OAUTH_JWKS_URI: `${issuer.url}/jwks` }),
    );
    closers.push(() => server.close());
    expect((await readiness(server)).status).toBe(503);

    issuer.down = false;
    // The retry backs off from 1 s; on a loaded machine give it a few rounds.
    await vi.waitFor(async () => expect((await readiness(server)).status).toBe(200), {
      timeout: 60_000,
      interval: 100,
    });

    issuer.down = true;
    const reply = await callTool(server.url, "list_workspace", { token: alice });
    expect(reply.status).toBe(503);
    expect((await readiness(server)).body).toMatchObject({ status: "authorization server unreachable" });
  });
});
