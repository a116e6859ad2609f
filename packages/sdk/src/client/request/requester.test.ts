import { describe, expect, it } from "vitest";
import { type JsonRpcRequest, type JsonRpcResponse, resultResponse } from "../../protocol/jsonrpc.js";
import { silentLogger } from "../../protocol/logger.js";
import { Negotiation } from "../era/negotiation.js";
import { NotificationRouter } from "../notification-router.js";
import { ClientTelemetry } from "../telemetry/client-telemetry.js";
import { ToolHeaderRegistry } from "../tool-headers.js";
import type { ClientTransport } from "../transport/client-transport.js";
import { ResponseStreamClosedError } from "../transport/http-errors.js";
import { Requester } from "./requester.js";

/** A transport that answers each request with the next of `answers`, keeping what was sent. */
function scripted(answers: Array<(request: JsonRpcRequest) => JsonRpcResponse>) {
  const sent: JsonRpcRequest[] = [];
  const transport: ClientTransport = {
    kind: "memory",
    request: async (request) => {
      sent.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error("no answer left");
      return answer(request);
    },
    close: async () => {},
  };
  return { transport, sent };
}

function requester(transport: ClientTransport): Requester {
  const speaker = {
    transport,
    info: { name: "c", version: "1" },
    capabilities: () => ({}),
    logLevel: undefined,
  };
  const negotiation = new Negotiation({ ...speaker, send: async () => ({}), logger: silentLogger });
  return new Requester({
    ...speaker,
    negotiation,
    notifications: new NotificationRouter({}, silentLogger),
    tools: new ToolHeaderRegistry(),
    requestTimeoutMs: undefined,
    relistTools: async () => {},
    telemetry: new ClientTelemetry(false),
  });
}

const ok = (request: JsonRpcRequest) => resultResponse(request.id, { fine: true });
const broken = () => {
  throw new ResponseStreamClosedError("tools/list");
};

describe("Requester", () => {
  it("sends each attempt with a fresh id and the 2026-07-28 envelope", async () => {
    const { transport, sent } = scripted([broken, ok]);
    expect(await requester(transport).send("tools/list", {}, {})).toEqual({ fine: true });
    expect(sent.map((request) => request.id)).toEqual([1, 2]);
    expect(sent[1]?.params?._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
  });

  it("runs a recovery once per request: a second broken stream fails it", async () => {
    const { transport, sent } = scripted([broken, broken, ok]);
    await expect(requester(transport).send("tools/list", {}, {})).rejects.toBeInstanceOf(
      ResponseStreamClosedError,
    );
    expect(sent).toHaveLength(2);
  });

  it("throws a JSON-RPC error answer as McpError", async () => {
    const { transport } = scripted([
      (request) => ({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "nope" } }),
    ]);
    await expect(requester(transport).send("tools/list", {}, {})).rejects.toMatchObject({ code: -32601 });
  });
});
