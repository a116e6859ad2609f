import { describe, expect, expectTypeOf, it } from "vitest";
import { ErrorCode, McpError } from "../protocol/errors.js";
import { CLIENT_REQUESTS, type ClientRequestFacts, type ClientRequestMethod } from "../protocol/methods.js";
import { handle, recordingLogger } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import type { Handlers } from "./handlers.js";
import { Server } from "./server.js";

type Registrar = (handler: () => never) => Server;

const handled = Object.entries<ClientRequestFacts>(CLIENT_REQUESTS).flatMap(([method, facts]) =>
  facts.handler === null || facts.capability === null
    ? []
    : [{ method, handler: facts.handler, capability: facts.capability }],
);

function fresh(): Server {
  return new Server({ name: "roundtrip-unit", version: "9.9.9" }, { logger: recordingLogger() });
}

describe("the method table's handler and capability columns", () => {
  it("name exactly the Server's handlers", () => {
    expectTypeOf<NonNullable<(typeof CLIENT_REQUESTS)[ClientRequestMethod]["handler"]>>().toEqualTypeOf<
      keyof Handlers
    >();
    expect(handled.map(({ handler }) => handler).sort()).toEqual(
      [
        "callTool",
        "complete",
        "getPrompt",
        "listPrompts",
        "listResourceTemplates",
        "listResources",
        "listTools",
        "readResource",
        "listSkills",
        "getSkill",
        "readResourceDirectory",
      ].sort(),
    );
  });

  it.each(handled)(
    "$method: served once its handler is registered, under the capability the table names",
    async ({ method, handler, capability }) => {
      const without = await handle(fresh(), rpcRequest(method));
      expect("error" in without.message && without.message.error.code).toBe(ErrorCode.MethodNotFound);

      const server = fresh();
      const register = (server as unknown as Record<string, Registrar>)[
        `on${handler[0]?.toUpperCase()}${handler.slice(1)}`
      ];
      expect(typeof register, handler).toBe("function");
      register?.call(server, () => {
        throw McpError.invalidParams("reached the handler");
      });
      expect(server.capabilities[capability], capability).toBeDefined();
      const served = await handle(server, rpcRequest(method));
      // Params a request needs may be missing here (-32602): what matters is that the method is found.
      expect("error" in served.message && served.message.error.code).not.toBe(ErrorCode.MethodNotFound);
    },
  );
});
