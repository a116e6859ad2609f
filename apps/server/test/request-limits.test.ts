import type { LocalAuthServer } from "@roundtrip/local-auth";
import { LATEST_PROTOCOL_VERSION } from "@roundtrip/sdk";
import { META } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerBeforeBodyEnds } from "./support/early-answer.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * What a caller can make the reference server read and compute on the MCP route: the token is checked
 * before the body is read, the body's size while it is read, and its nesting before anything parses
 * it (the server's own hooks parse a body to learn the tool a 2025-era request calls).
 */

const MAX_BODY_BYTES = 64 * 1024;

let as: LocalAuthServer;
let app: RunningServer;
let token: string;

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as, { MAX_BODY_BYTES: String(MAX_BODY_BYTES) }));
  token = (await as.authorizationCodeToken("alice", "mcp:tools")).accessToken;
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

/** The headers of a correct 2026-07-28 tools/call of `list_workspace`, with `extra` over them. */
function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "list_workspace",
    ...extra,
  };
}

/** A tools/call of `list_workspace` whose arguments are `raw`, JSON text no serializer would write. */
function bodyWithArguments(raw: string): string {
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "list_workspace",
      arguments: "RAW",
      _meta: {
        [META.protocolVersion]: LATEST_PROTOCOL_VERSION,
        [META.clientCapabilities]: { roots: {} },
        [META.clientInfo]: { name: "limits-test", version: "0.0.0" },
      },
    },
  };
  return JSON.stringify(message).replace('"RAW"', raw);
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("the MCP route: what a caller can make it read and compute", () => {
  it("answers a request without a token with 401 before reading its body", async () => {
    const before = app.dispatched.length;
    // The first 32 KiB of a deep body the client declared whole: nothing more ever comes.
    const answer = await answerBeforeBodyEnds(app.url, headers(), "[".repeat(32 * 1024), MAX_BODY_BYTES);
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain("resource_metadata=");
    expect(app.dispatched.length).toBe(before);
  });

  it("answers 413 as soon as a body grows past MAX_BODY_BYTES, without waiting for the rest", async () => {
    const answer = await answerBeforeBodyEnds(
      app.url,
      headers({ authorization: `Bearer ${token}` }),
      " ".repeat(MAX_BODY_BYTES + 1),
    );
    expect(answer.status).toBe(413);
  });

  it("refuses a body nested beyond the limit with 400 -32700, with a valid token, before parsing it", async () => {
    const before = app.dispatched.length;
    const response = await fetch(app.url, {
      method: "POST",
      headers: headers({ authorization: `Bearer ${token}` }),
      body: bodyWithArguments(nested(5_000)),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: -32700,
        message: expect.stringContaining("nests arrays and objects deeper than 128 levels"),
      },
    });
    expect(app.dispatched.length).toBe(before);
  });

  it("serves a request with a valid token and an ordinary body", async () => {
    const response = await fetch(app.url, {
      method: "POST",
      headers: headers({ authorization: `Bearer ${token}` }),
      body: bodyWithArguments("{}"),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ result: { resultType: "input_required" } });
  });
});
