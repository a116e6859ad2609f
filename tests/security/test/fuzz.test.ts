import { LATEST_PROTOCOL_VERSION } from "@roundtrip/sdk";
import { LATEST_LEGACY_PROTOCOL_VERSION, META } from "@roundtrip/sdk/protocol";
import { callTool } from "@roundtrip/test-support/wire";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession } from "../src/legacy-wire.js";
import { Target } from "../src/target.js";

/**
 * Fuzzing of everything the reference server exposes, as one real process: the MCP endpoint in both
 * eras (with a valid token, so bodies get past authentication and reach the dispatcher), the approval
 * page and the sign-in callback. Whatever arrives, the server answers with a client error or a result,
 * never a 5xx, and never dies. Seeded, so a failure replays.
 */
let target: Target;
let alice: string;

beforeAll(async () => {
  target = await Target.start({ env: { RATE_LIMIT_ADDRESS_MAX: "10000000", RATE_LIMIT_MAX: "1000000" } });
  alice = await target.token("alice");
}, 240_000);

afterAll(async () => {
  await target?.close();
});

const METHODS = [
  "initialize",
  "tools/list",
  "tools/call",
  "prompts/get",
  "prompts/list",
  "resources/read",
  "resources/list",
  "resources/templates/list",
  "server/discover",
  "subscriptions/listen",
  "completion/complete",
  "logging/setLevel",
  "ping",
  "notifications/cancelled",
  "notifications/initialized",
];
const TOOLS = ["create_service", "deploy", "summarize", "list_workspace", "nope"];

const params = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 5,
    arbitrary: fc.record(
      {
        name: fc.oneof(fc.constantFrom(...TOOLS), fc.string()),
        arguments: fc.oneof(fc.object(), fc.jsonValue()),
        requestState: fc.oneof(fc.string(), fc.jsonValue()),
        inputResponses: fc.oneof(fc.object(), fc.jsonValue()),
        uri: fc.oneof(fc.constantFrom("status://api", "status://../../etc/passwd"), fc.string()),
        _meta: fc.oneof(
          fc.constant({
            [META.protocolVersion]: LATEST_PROTOCOL_VERSION,
            [META.clientCapabilities]: { elicitation: { form: {} } },
            [META.clientInfo]: { name: "fuzz", version: "0" },
          }),
          fc.object(),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    ),
  },
);

const request = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: fc.jsonValue() }),
    id: fc.oneof({ weight: 6, arbitrary: fc.nat() }, fc.string(), fc.constant(null), fc.jsonValue()),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
      { weight: 1, arbitrary: fc.string() },
    ),
    params,
    result: fc.jsonValue(),
    error: fc.jsonValue(),
  },
  { requiredKeys: ["jsonrpc", "method"] },
);

interface Shot {
  body: string;
  headers: Record<string, string>;
}

/** Rarely (one time in six) a header replaced with another value or junk; otherwise the coherent one. */
const perturbed = (name: string, values: string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom(...values), fc.string({ maxLength: 40 }))
        .map((value) => ({ [name]: value.replace(/[\r\n]/g, " ") })),
    },
  );

/**
 * Mostly coherent requests of either era (headers that agree with the body, so the fuzz reaches the
 * dispatcher and the handlers), with one thing in six made wrong: a header, a truncated body, junk.
 */
function shots(sessionId: string): fc.Arbitrary<Shot> {
  return fc
    .tuple(
      fc.boolean(),
      request,
      fc.oneof(
        { weight: 8, arbitrary: fc.constant("whole") },
        { weight: 1, arbitrary: fc.constant("truncated") },
        { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      ),
      perturbed("mcp-protocol-version", [
        LATEST_PROTOCOL_VERSION,
        LATEST_LEGACY_PROTOCOL_VERSION,
        "1999-01-01",
      ]),
      perturbed("mcp-method", METHODS),
      perturbed("mcp-name", TOOLS),
      perturbed("mcp-session-id", [sessionId, "no-such-session"]),
      perturbed("content-type", ["application/json", "text/plain", "application/json; charset=utf-16"]),
      perturbed("accept", ["application/json, text/event-stream", "text/event-stream", "*/*", "text/html"]),
    )
    .map(([legacy, message, shape, ...overrides]) => {
      const coherent: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      if (legacy) {
        coherent["mcp-session-id"] = sessionId;
        coherent["mcp-protocol-version"] = LATEST_LEGACY_PROTOCOL_VERSION;
      } else {
        coherent["mcp-protocol-version"] = LATEST_PROTOCOL_VERSION;
        if (typeof message.method === "string") coherent["mcp-method"] = message.method;
        const name = (message.params as { name?: unknown } | null)?.name;
        if (typeof name === "string") coherent["mcp-name"] = name;
      }
      const whole = JSON.stringify(message);
      const body = shape === "whole" ? whole : shape === "truncated" ? whole.slice(0, -3) : shape;
      return { body, headers: Object.assign(coherent, ...overrides) };
    });
}

/** Reads the whole answer with a bound, so an SSE stream that stays open does not hold the test. */
async function send(url: string, init: RequestInit): Promise<number> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const status = response.status;
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) controller.abort();
  else await response.arrayBuffer();
  return status;
}

/** A release alice asked to deploy: the approval page has something real to show for it. */
async function askForRelease(): Promise<string> {
  const options = {
    token: alice,
    arguments: { service: "api", env: "staging" },
    capabilities: { elicitation: { form: {}, url: {} } },
  };
  const first = await callTool(target.instance.url, "deploy", options);
  const asked = first.body?.result as { inputRequests?: Record<string, unknown>; requestState?: string };
  const [key] = Object.keys(asked.inputRequests ?? {});
  if (key === undefined) throw new Error(`deploy asked nothing: ${JSON.stringify(first.body)}`);
  const second = await callTool(target.instance.url, "deploy", {
    ...options,
    retry: {
      ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
      inputResponses: { [key]: { action: "accept", content: { confirm: true } } },
    },
  });
  const url = /\/approvals\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(second.body))?.[1];
  if (url === undefined) throw new Error(`deploy gave no approval URL: ${JSON.stringify(second.body)}`);
  return url;
}

describe("fuzzing", () => {
  it("the MCP endpoint, both eras, with a valid token: no 5xx, no crash", async () => {
    const sessionId = await openSession(target.instance.url, alice);
    const failures: string[] = [];
    for (const shot of fc.sample(shots(sessionId), { numRuns: 1500, seed: 424242 })) {
      const status = await send(target.instance.url, {
        method: "POST",
        headers: { ...shot.headers, authorization: `Bearer ${alice}` },
        body: shot.body,
      }).catch(() => -1);
      if (status >= 500 || status < 0) failures.push(`${status} for ${JSON.stringify(shot).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(await target.alive()).toBe(true);
  });

  it("the approval page and the sign-in callback: no 5xx, no crash", async () => {
    const origin = target.instance.origin;
    const release = await askForRelease();
    const segment = fc.oneof(
      fc.constant(release),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.constantFrom("..", "%2e%2e", "%00", "<script>alert(1)</script>", "approve", "reject", "sign-in"),
    );
    const request = fc.record({
      path: fc.oneof(
        segment.map((release) => `/approvals/${release}`),
        segment.map((release) => `/approvals/${release}/sign-in`),
        segment.map((release) => `/approvals/${release}/approve`),
        segment.map((release) => `/approvals/${release}/reject`),
        fc.string({ maxLength: 80 }).map((query) => `/callback?${encodeURIComponent(query)}`),
        fc
          .tuple(fc.string(), fc.string())
          .map(
            ([state, code]) =>
              `/callback?state=${encodeURIComponent(state)}&code=${encodeURIComponent(code)}&iss=x`,
          ),
      ),
      post: fc.boolean(),
      body: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.dictionary(fc.string(), fc.string()).map((fields) => new URLSearchParams(fields).toString()),
      ),
      cookie: fc.option(
        fc
          .string({ maxLength: 200 })
          .map(
            (value) =>
              `roundtrip_approver=${encodeURIComponent(value)}; roundtrip_login=${encodeURIComponent(value)}`,
          ),
        { nil: undefined },
      ),
    });
    const failures: string[] = [];
    for (const shot of fc.sample(request, { numRuns: 600, seed: 777 })) {
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (shot.cookie !== undefined) headers.cookie = shot.cookie;
      const status = await send(`${origin}${shot.path}`, {
        method: shot.post ? "POST" : "GET",
        headers,
        redirect: "manual",
        ...(shot.post ? { body: shot.body } : {}),
      }).catch(() => -1);
      if (status >= 500 || status < 0) failures.push(`${status} for ${JSON.stringify(shot).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(await target.alive()).toBe(true);
  });
});
