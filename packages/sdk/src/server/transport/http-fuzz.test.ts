import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { encodeHeaderValue } from "../../protocol/http-headers.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import {
  applyMutation,
  contentTypeValue,
  headerValue,
  idValue,
  jsonValue,
  mutationsOf,
  originValue,
} from "../../test-support/fuzz-arbitraries.js";
import { askText, fuzzServer, ROUTE_INPUT } from "../../test-support/fuzz-server.js";
import {
  expectDocumentedAnswer,
  LEGACY_CODES_BY_STATUS,
  type RawResponse,
  rawRequest,
} from "../../test-support/fuzz-wire.js";
import { type RunningHttpServer, startHttpServer } from "../../test-support/http.js";
import { mcpHeaders, rpcRequest } from "../../test-support/messages.js";

/**
 * Property tests of the Streamable HTTP server against whatever a client may send: random and mutated
 * JSON-RPC bodies, hostile header values, forged requestState and inputResponses. Whatever arrives,
 * the answer is a documented status with a well-formed JSON-RPC body, never a 5xx, and the server
 * keeps serving correct requests. Runs are bounded so the file stays well under 30 s.
 */

const BODY_LIMIT = 16 * 1024;
const ROUTE_TOOL: Tool = { name: "route", inputSchema: ROUTE_INPUT };
const ELICITING = { capabilities: { elicitation: {} } };

let http: RunningHttpServer;
let logger: ReturnType<typeof fuzzServer>["logger"];
/** A genuine sealed requestState for `ask` with topic "tea", minted once. */
let token: string;

function askRequest(extra: Record<string, unknown> = {}, topic = "tea"): JsonRpcRequest {
  return rpcRequest("tools/call", { name: "ask", arguments: { topic }, ...extra }, ELICITING);
}

function send(request: unknown, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest(http.url, { headers, body: JSON.stringify(request) });
}

function resultOf(answer: ReturnType<typeof expectDocumentedAnswer>): Record<string, unknown> | undefined {
  return answer && "result" in answer ? answer.result : undefined;
}

function toolText(result: Record<string, unknown> | undefined): string | undefined {
  const content = result?.content as { type?: string; text?: string }[] | undefined;
  return content?.map((block) => block.text ?? "").join("");
}

/** A whole correct flow still works: round 1 asks, round 2 with the sealed state answers. */
async function expectHealthy(): Promise<void> {
  const first = askRequest();
  const asked = resultOf(expectDocumentedAnswer(await send(first, mcpHeaders(first)), first.id));
  expect(asked?.resultType).toBe("input_required");
  const second = askRequest({
    requestState: asked?.requestState,
    inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
  });
  const done = resultOf(expectDocumentedAnswer(await send(second, mcpHeaders(second)), second.id));
  expect(toolText(done)).toBe(askText("tea", "Ada"));
}

beforeAll(async () => {
  const fixture = fuzzServer();
  logger = fixture.logger;
  http = await startHttpServer(fixture.mcp.server, { maxBodyBytes: BODY_LIMIT });
  const first = askRequest();
  const answer = resultOf(expectDocumentedAnswer(await send(first, mcpHeaders(first)), first.id));
  token = String(answer?.requestState);
});

afterEach(async () => {
  await expectHealthy();
  // Refused input is logged as a warning at most; an error line means something broke inside.
  expect(logger.records.filter((record) => record.level === "error")).toEqual([]);
});

afterAll(async () => {
  await http.close();
});

/** Correct requests of several kinds, to mutate. */
const baseRequest: fc.Arbitrary<JsonRpcRequest> = fc.oneof(
  fc.constant(null).map(() => askRequest()),
  fc
    .constant(null)
    .map(() =>
      rpcRequest("tools/call", { name: "route", arguments: { region: "eu", count: 3, fast: true } }),
    ),
  fc.constant(null).map(() => rpcRequest("tools/list")),
  fc.constant(null).map(() => rpcRequest("server/discover")),
);

/** Header values lose surrounding spaces and tabs on the wire (RFC 9110 OWS). */
function ows(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

function idOf(body: unknown): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as { id?: unknown }).id
    : undefined;
}

/** The id the server can read from a body sent as text, if the text is JSON at all. */
function idOfText(text: string): unknown {
  try {
    return idOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Whether two header sets say the same once the wire has stripped optional whitespace. */
function sameHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys({ ...a, ...b }).every((name) => {
    const left = a[name];
    const right = b[name];
    return left === undefined || right === undefined ? left === right : ows(left) === ows(right);
  });
}

describe("HTTP server under random input", () => {
  it("answers random bodies, garbage and oversized ones with a documented error, never a 5xx", async () => {
    const body = fc.oneof(
      jsonValue.map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 200 }),
      fc
        .record({ id: idValue, method: fc.string({ maxLength: 20 }), params: jsonValue })
        .map((value) => JSON.stringify({ jsonrpc: "2.0", ...value })),
      fc.integer({ min: BODY_LIMIT - 64, max: BODY_LIMIT + 2048 }).map((size) => {
        const json = JSON.stringify(rpcRequest("tools/list"));
        return json + " ".repeat(Math.max(0, size - json.length));
      }),
    );
    const method = fc.constantFrom("POST", "POST", "POST", "POST", "GET", "DELETE", "PUT", "PATCH");
    await fc.assert(
      fc.asyncProperty(body, method, async (text, httpMethod) => {
        const headers = mcpHeaders(rpcRequest("tools/list"));
        const response = await rawRequest(http.url, {
          method: httpMethod,
          headers,
          ...(httpMethod === "GET" ? {} : { body: text }),
        });
        expectDocumentedAnswer(response, idOfText(text), httpMethod);
        // GET and DELETE belong to 2025-era sessions: without an Mcp-Session-Id they are bad requests.
        if (httpMethod === "GET" || httpMethod === "DELETE") expect(response.status).toBe(400);
        else if (httpMethod !== "POST") expect(response.status).toBe(405);
        else if (Buffer.byteLength(text) > BODY_LIMIT) expect(response.status).toBe(413);
      }),
      { numRuns: 300 },
    );
  });

  it("answers mutated requests (fields deleted, replaced, added) with a documented answer", async () => {
    const mutated = baseRequest.chain((request) =>
      mutationsOf(request).map((mutations) => ({ request, mutations })),
    );
    await fc.assert(
      fc.asyncProperty(mutated, async ({ request, mutations }) => {
        const tool = request.params?.name === "route" ? ROUTE_TOOL : undefined;
        const headers = mcpHeaders(request, tool);
        const body = mutations.reduce<unknown>((doc, mutation) => applyMutation(doc, mutation), request);
        expectDocumentedAnswer(await send(body, headers), idOf(body));
      }),
      { numRuns: 400 },
    );
  });

  it("answers hostile header values with a documented answer, 403 for foreign origins and 415 for other media types", async () => {
    const names = [
      "mcp-protocol-version",
      "mcp-method",
      "mcp-name",
      "mcp-param-region",
      "mcp-param-count",
      "mcp-param-fast",
      "authorization",
      "accept",
    ] as const;
    const edit = fc.option(fc.oneof(fc.constant<null>(null), headerValue), { nil: undefined });
    const edits = fc.record({
      ...Object.fromEntries(names.map((name) => [name, edit])),
      origin: fc.option(fc.oneof(fc.constant<null>(null), originValue), { nil: undefined }),
      "content-type": fc.option(fc.oneof(fc.constant<null>(null), contentTypeValue), { nil: undefined }),
    }) as fc.Arbitrary<Record<string, string | null | undefined>>;

    await fc.assert(
      fc.asyncProperty(baseRequest, edits, async (request, changes) => {
        const tool = request.params?.name === "route" ? ROUTE_TOOL : undefined;
        const correct = mcpHeaders(request, tool);
        const headers = { ...correct };
        for (const [name, value] of Object.entries(changes)) {
          if (value === null) delete headers[name];
          else if (value !== undefined) headers[name] = value;
        }
        const response = await send(request, headers);
        const answer = expectDocumentedAnswer(response, request.id);

        const origin = headers.origin === undefined ? undefined : ows(headers.origin);
        const media = ows(headers["content-type"] ?? "").toLowerCase();
        if (origin !== undefined && !isLoopbackOrigin(origin)) expect(response.status).toBe(403);
        else if (!media.startsWith("application/json")) expect(response.status).toBe(415);
        if (sameHeaders(headers, correct)) expect(answer && "result" in answer).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

/** The same token with one character changed, so its authentication tag can no longer match. */
function tampered(state: string, at: number, replacement: string): string {
  const index = at % state.length;
  const char = state[index] === replacement ? (replacement === "A" ? "B" : "A") : replacement;
  return state.slice(0, index) + char + state.slice(index + 1);
}

describe("HTTP server under forged retries", () => {
  it("never answers a retry successfully unless its requestState is the one it sealed, whatever the inputResponses", async () => {
    const b64url = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.");
    const state = fc.oneof(
      fc.constant({ kind: "genuine" as const }),
      fc.tuple(fc.nat(), b64url).map(([at, char]) => ({ kind: "tampered" as const, at, char })),
      fc.string({ maxLength: 60 }).map((text) => ({ kind: "forged" as const, text })),
      jsonValue.map((value) => ({ kind: "other" as const, value })),
      fc.constant({ kind: "absent" as const }),
    );
    const answer = fc.oneof(
      fc.string({ maxLength: 20 }).map((name) => ({ action: "accept", content: { name } }) as unknown),
      fc.record({
        action: fc.oneof(fc.constantFrom("accept", "decline", "cancel"), jsonValue),
        content: jsonValue,
      }),
      jsonValue,
    );
    const responses = fc.oneof(
      fc.record({ name: answer }),
      fc.dictionary(fc.string({ maxLength: 8 }), answer, { maxKeys: 3 }),
      jsonValue,
      fc.constant(undefined),
    );
    const topic = fc.oneof(
      { weight: 4, arbitrary: fc.constant("tea") },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    );

    await fc.assert(
      fc.asyncProperty(state, responses, topic, async (chosen, inputResponses, askedTopic) => {
        const requestState =
          chosen.kind === "genuine"
            ? token
            : chosen.kind === "tampered"
              ? tampered(token, chosen.at, chosen.char)
              : chosen.kind === "forged"
                ? chosen.text
                : chosen.kind === "other"
                  ? chosen.value
                  : undefined;
        const extra: Record<string, unknown> = {};
        if (requestState !== undefined) extra.requestState = requestState;
        if (inputResponses !== undefined) extra.inputResponses = inputResponses;
        const request = askRequest(extra, askedTopic);
        const reply = expectDocumentedAnswer(await send(request, mcpHeaders(request)), request.id);
        const result = resultOf(reply);

        const sealedForThis = requestState === token && askedTopic === "tea";
        // A tool error (an unusable answer) may complete; a successful answer needs the genuine state.
        if (!sealedForThis) expect(result?.resultType === "complete" && result.isError !== true).toBe(false);
        if (typeof requestState === "string" && requestState !== token && requestState !== "") {
          expect(reply && "error" in reply ? reply.error.code : undefined).toBe(-32602);
        }
        const named = (
          inputResponses as { name?: { action?: unknown; content?: { name?: unknown } } } | undefined
        )?.name;
        if (sealedForThis && named?.action === "accept" && typeof named.content?.name === "string") {
          const exact = Object.keys(named).length === 2 && Object.keys(named.content).length === 1;
          if (exact) expect(toolText(result)).toBe(askText("tea", named.content.name));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("HTTP server and x-mcp-header arguments", () => {
  const args = fc.record(
    {
      region: fc.string({ unit: "grapheme", maxLength: 12 }),
      count: fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(-Number.MAX_SAFE_INTEGER)),
      fast: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const routeCall = (values: Record<string, unknown>) =>
    rpcRequest("tools/call", { name: "route", arguments: values });

  it("accepts the headers a correct client derives, for any value, encoded or not", async () => {
    await fc.assert(
      fc.asyncProperty(args, async (values) => {
        const request = routeCall(values);
        const reply = expectDocumentedAnswer(
          await send(request, mcpHeaders(request, ROUTE_TOOL)),
          request.id,
        );
        expect(toolText(resultOf(reply))).toBe(JSON.stringify(values));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses with 400 -32020 a header that is missing, extra or disagrees with its argument", async () => {
    const params = [
      { key: "region", header: "mcp-param-region" },
      { key: "count", header: "mcp-param-count" },
      { key: "fast", header: "mcp-param-fast" },
    ] as const;
    const other = (key: string, value: unknown): string =>
      key === "fast"
        ? String(!value)
        : key === "count"
          ? String(Number(value ?? 0) + 1)
          : encodeHeaderValue(`${String(value ?? "")}x`);
    const broken = fc.tuple(args, fc.constantFrom(...params), fc.constantFrom("drop", "add", "change"));
    await fc.assert(
      fc.asyncProperty(broken, async ([values, param, how]) => {
        const present = values[param.key] !== undefined;
        fc.pre(how === "add" ? !present : present);
        const request = routeCall(values);
        const headers = mcpHeaders(request, ROUTE_TOOL);
        if (how === "drop") delete headers[param.header];
        else headers[param.header] = other(param.key, values[param.key]);
        const response = await send(request, headers);
        const reply = expectDocumentedAnswer(response, request.id);
        expect(response.status).toBe(400);
        expect(reply && "error" in reply ? reply.error.code : undefined).toBe(-32020);
      }),
      { numRuns: 200 },
    );
  });
});

function isLoopbackOrigin(origin: string): boolean {
  try {
    return ["localhost", "127.0.0.1", "[::1]"].includes(new URL(origin).hostname);
  } catch {
    return false;
  }
}

describe("HTTP server under random 2025-era input", () => {
  it("answers legacy-shaped messages and hostile session headers with the era's documented answers", async () => {
    const opened = await rawRequest(http.url, {
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        },
      }),
    });
    const sessionId = opened.headers["mcp-session-id"] as string;
    expect(sessionId).toBeTypeOf("string");
    const legacyMessage = fc.oneof(
      fc.record({ id: idValue, method: fc.constant("initialize"), params: jsonValue }),
      fc.record({
        id: idValue,
        method: fc.constantFrom(
          "ping",
          "logging/setLevel",
          "resources/subscribe",
          "tools/list",
          "tools/call",
          "nope",
        ),
        params: fc.oneof(jsonValue, fc.constant({ name: "ask", arguments: { topic: "tea" } })),
      }),
      fc.record({ id: idValue, result: jsonValue }),
      fc.record({ id: idValue, error: jsonValue }),
      fc.record({
        method: fc.constantFrom("notifications/initialized", "notifications/cancelled", "notifications/x"),
        params: jsonValue,
      }),
    );
    const session = fc.oneof(fc.constant(sessionId), headerValue, fc.constant(undefined));
    const version = fc.oneof(
      fc.constantFrom("2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"),
      headerValue,
      fc.constant(undefined),
    );
    const httpMethod = fc.constantFrom("POST", "POST", "POST", "GET", "DELETE");
    await fc.assert(
      fc.asyncProperty(legacyMessage, session, version, httpMethod, async (message, id, v, method) => {
        // DELETE with the real id would end the session the rest of the run relies on, and a GET on it
        // opens a stream that never ends (the session tests cover both).
        const target = method !== "POST" && id === sessionId ? "another" : id;
        const headers: Record<string, string> = {
          "content-type": "application/json",
          accept: method === "GET" ? "text/event-stream" : "application/json",
          ...(target === undefined ? {} : { "mcp-session-id": target }),
          ...(v === undefined ? {} : { "mcp-protocol-version": v }),
        };
        const response = await rawRequest(http.url, {
          method,
          headers,
          ...(method === "GET" ? {} : { body: JSON.stringify({ jsonrpc: "2.0", ...message }) }),
        });
        expect(response.status, response.body).toBeLessThan(500);
        // Notifications, responses and a DELETE that ended a session are answered without a JSON-RPC body.
        if (response.status === 202 || (method === "DELETE" && response.status === 200)) return;
        const sentId = method === "POST" && "id" in message ? message.id : undefined;
        expectDocumentedAnswer(response, sentId, method, LEGACY_CODES_BY_STATUS);
      }),
      { numRuns: 300 },
    );
    const ping = await rawRequest(http.url, {
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "still-alive", method: "ping" }),
    });
    expect(JSON.parse(ping.body)).toEqual({ jsonrpc: "2.0", id: "still-alive", result: {} });
    await expectHealthy();
  });
});
