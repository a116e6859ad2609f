import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpError } from "../protocol/errors.js";
import {
  createMessage,
  elicitForm,
  elicitUrl,
  inputRequired,
  listRoots,
} from "../protocol/input-required.js";
import { errorResponse } from "../protocol/jsonrpc.js";
import { SERVER_REQUESTS } from "../protocol/methods.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { InputRequest } from "../protocol/schemas/input-required.js";
import {
  resultOf as httpResultOf,
  post,
  type RunningHttpServer,
  startHttpServer,
} from "../test-support/http.js";
import { errorOf, handle, recordingLogger, resultOf } from "../test-support/in-process.js";
import { rpcRequest } from "../test-support/messages.js";
import { assertErrorResponse } from "../test-support/wire-schema.js";
import { assertCapabilitiesFor, missingCapabilityFor } from "./capability-gate.js";
import { Server } from "./server.js";

const form = elicitForm("Name?", { type: "object", properties: { name: { type: "string" } } });
const modeless: InputRequest = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
};
const url = elicitUrl("Sign in", "https://auth.example.com/start");
const sample = createMessage({
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 5,
});
const sampleWithTools = createMessage({
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 5,
  tools: [{ name: "lookup", inputSchema: { type: "object" } }],
});
const sampleWithToolChoice = createMessage({
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 5,
  toolChoice: { mode: "auto" },
});
const roots = listRoots();

describe("missingCapabilityFor", () => {
  it("asks a client that declared nothing for the capability the method table names for the request", () => {
    for (const request of [form, url, sample, sampleWithTools, roots]) {
      const missing = missingCapabilityFor(request, {});
      expect(Object.keys(missing ?? {}), request.method).toEqual([
        SERVER_REQUESTS[request.method].capability,
      ]);
    }
  });

  it.each<[string, InputRequest, ClientCapabilities, ClientCapabilities | undefined]>([
    ["form, nothing declared", form, {}, { elicitation: { form: {} } }],
    ["form, bare elicitation {} counts as form", form, { elicitation: {} }, undefined],
    ["form, elicitation.form", form, { elicitation: { form: {} } }, undefined],
    ["form, url only", form, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    [
      "mode absent means form, url only",
      modeless,
      { elicitation: { url: {} } },
      { elicitation: { form: {} } },
    ],
    ["mode absent means form, bare {}", modeless, { elicitation: {} }, undefined],
    ["url, nothing declared", url, {}, { elicitation: { url: {} } }],
    ["url, bare elicitation {} is form only", url, { elicitation: {} }, { elicitation: { url: {} } }],
    ["url, form only", url, { elicitation: { form: {} } }, { elicitation: { url: {} } }],
    ["url, elicitation.url", url, { elicitation: { url: {} } }, undefined],
    ["sampling, nothing declared", sample, {}, { sampling: {} }],
    ["sampling, declared", sample, { sampling: {} }, undefined],
    ["sampling with tools, nothing declared", sampleWithTools, {}, { sampling: { tools: {} } }],
    [
      "sampling with tools, sampling without tools",
      sampleWithTools,
      { sampling: {} },
      { sampling: { tools: {} } },
    ],
    ["sampling with tools, sampling.tools", sampleWithTools, { sampling: { tools: {} } }, undefined],
    [
      "sampling with toolChoice, sampling without tools",
      sampleWithToolChoice,
      { sampling: {} },
      { sampling: { tools: {} } },
    ],
    ["roots, nothing declared", roots, { elicitation: {}, sampling: {} }, { roots: {} }],
    ["roots, declared", roots, { roots: {} }, undefined],
  ])("%s", (_label, request, capabilities, expected) => {
    expect(missingCapabilityFor(request, capabilities)).toEqual(expected);
  });
});

describe("assertCapabilitiesFor", () => {
  it("passes when every request is covered", () => {
    expect(() =>
      assertCapabilitiesFor([form, url, sampleWithTools, roots], {
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: {},
      }),
    ).not.toThrow();
  });

  it("names every missing capability in one -32021 error", () => {
    let thrown: unknown;
    try {
      assertCapabilitiesFor([form, url, sample, sampleWithTools, roots], {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpError);
    const error = thrown as McpError;
    const wire = errorResponse(1, error.toJSON());
    assertErrorResponse(wire, -32021);
    expect(error.data).toEqual({
      requiredCapabilities: { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} },
    });
    expect(error.message).toBe(
      "Server requires the elicitation and sampling and roots capability for this request",
    );
  });

  it("names a missing extension by its id", () => {
    const error = McpError.missingCapability({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(error.message).toBe(
      "Server requires the io.modelcontextprotocol/tasks extension capability for this request",
    );
  });
});

describe("the capability gate on the wire", () => {
  function asking(requests: Record<string, InputRequest>): Server {
    return new Server({ name: "gate", version: "1" }, { logger: recordingLogger() }).onCallTool(() =>
      inputRequired({ inputRequests: requests, requestState: "s" }),
    );
  }

  it.each<[string, Record<string, InputRequest>, ClientCapabilities, ClientCapabilities]>([
    ["form elicitation", { a: form }, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ["url elicitation", { a: url }, { elicitation: {} }, { elicitation: { url: {} } }],
    ["sampling", { a: sample }, { roots: {} }, { sampling: {} }],
    ["sampling with tools", { a: sampleWithTools }, { sampling: {} }, { sampling: { tools: {} } }],
    ["roots", { a: roots }, { sampling: {} }, { roots: {} }],
  ])(
    "refuses %s the request did not declare with -32021 and data.requiredCapabilities",
    async (_l, requests, caps, required) => {
      const handled = await handle(
        asking(requests),
        rpcRequest("tools/call", { name: "t" }, { capabilities: caps }),
      );
      expect(errorOf(handled)).toMatchObject({ code: -32021, data: { requiredCapabilities: required } });
    },
  );

  it("sends the questions when this request declares what they need", async () => {
    const handled = await handle(
      asking({ a: form, b: url, c: sampleWithTools, d: roots }),
      rpcRequest(
        "tools/call",
        { name: "t" },
        {
          capabilities: { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} },
        },
      ),
    );
    expect(Object.keys(resultOf(handled).inputRequests as object)).toEqual(["a", "b", "c", "d"]);
  });

  it("accepts a bare elicitation {} for a form question on the wire", async () => {
    const handled = await handle(
      asking({ a: form }),
      rpcRequest("tools/call", { name: "t" }, { capabilities: { elicitation: {} } }),
    );
    expect(resultOf(handled).resultType).toBe("input_required");
  });
});

describe("includeContext and sampling.context, on the wire", () => {
  const withContext = (includeContext: "none" | "thisServer" | "allServers") =>
    createMessage({
      messages: [{ role: "user", content: { type: "text", text: "summarize" } }],
      maxTokens: 5,
      includeContext,
    });
  let http: RunningHttpServer;
  beforeAll(async () => {
    const server = new Server({ name: "context", version: "1" }, { logger: recordingLogger() });
    server.onCallTool(() =>
      inputRequired({
        inputRequests: {
          mine: withContext("thisServer"),
          all: withContext("allServers"),
          none: withContext("none"),
          name: form,
        },
        requestState: "s",
      }),
    );
    http = await startHttpServer(server);
  });
  afterAll(() => http.close());

  async function askedWith(capabilities: ClientCapabilities) {
    const reply = await post(http.url, rpcRequest("tools/call", { name: "t" }, { capabilities }));
    return httpResultOf(reply).inputRequests as Record<string, { params: Record<string, unknown> }>;
  }

  it("drops thisServer and allServers for a client that did not declare sampling.context", async () => {
    const asked = await askedWith({ sampling: {}, elicitation: {} });
    expect(asked.mine?.params).not.toHaveProperty("includeContext");
    expect(asked.all?.params).not.toHaveProperty("includeContext");
    expect(asked.mine?.params.messages).toEqual([
      { role: "user", content: { type: "text", text: "summarize" } },
    ]);
    expect(asked.none?.params.includeContext).toBe("none");
    expect(asked.name).toEqual(form);
  });

  it("sends them to a client that declared sampling.context", async () => {
    const asked = await askedWith({ sampling: { context: {} }, elicitation: {} });
    expect(asked.mine?.params.includeContext).toBe("thisServer");
    expect(asked.all?.params.includeContext).toBe("allServers");
  });
});
