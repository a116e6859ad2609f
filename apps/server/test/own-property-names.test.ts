import type { LocalAuthServer } from "@roundtrip/local-auth";
import { callTool } from "@roundtrip/test-support/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let token: string;

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  // The base scope only: a tool that needed an extra scope would be refused with 403.
  token = (await as.authorizationCodeToken("alice", "mcp:tools")).accessToken;
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

describe("tool names that are also Object's own names", () => {
  it("still asks deploy's extra scope of a token without it", async () => {
    const reply = await callTool(app.url, "deploy", { token });
    expect(reply.status).toBe(403);
    expect(reply.challenge?.params.error).toBe("insufficient_scope");
  });

  // The per-tool scope table is a plain object: a lookup that walked its prototype would find a
  // "scope" for each of these and refuse the call, or fail reading it, instead of calling no tool.
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])(
    "treats a call of %s as an unknown tool that needs no extra scope",
    async (name) => {
      const reply = await callTool(app.url, name, { token });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.challenge).toBeUndefined();
      expect(JSON.stringify(reply.body)).toContain(name);
      expect(reply.body).toMatchObject({ error: { code: -32602 } });
      // The server is still there, and still serves a known tool.
      const known = await callTool(app.url, "whoami", { token });
      expect(known.status).toBe(200);
    },
  );
});
