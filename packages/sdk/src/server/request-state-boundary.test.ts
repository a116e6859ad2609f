import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import {
  AesGcmRequestStateCodec,
  argumentsDigest,
  type BindPrincipal,
  EMPTY_ARGUMENTS_DIGEST,
  InvalidRequestState,
  type RequestStateCodec,
  RequestStateSecurity,
} from "@roundtrip/sealing";
import { afterEach, describe, expect, it } from "vitest";
import { isCarrierMethod } from "../protocol/carriers.js";
import { elicitForm, inputRequired } from "../protocol/input-required.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.js";
import { RequestMetaSchema } from "../protocol/schemas/envelope.js";
import { post, type RunningHttpServer, responseOf, startHttpServer } from "../test-support/http.js";
import { handle, type LogRecord, recordingLogger } from "../test-support/in-process.js";
import { envelope, rpcRequest } from "../test-support/messages.js";
import type { AuthInfo } from "./auth-info.js";
import { createRequestContext } from "./context.js";
import type { MiddlewareRequest, ResultObject } from "./middleware.js";
import { requestStateBoundary } from "./request-state-boundary.js";
import { Server } from "./server.js";
import { HttpError } from "./transport/http-errors.js";

/**
 * The request-state boundary on the real low-level Server, end to end: every behaviour runs once
 * in memory (`server.handleRequest`) and once over real Streamable HTTP on an ephemeral port, and
 * every message the server sends is validated against the official 2026-07-28 schema by the
 * test-support transports. Numbers in brackets are the acceptance behaviours of the reference
 * (its documented acceptance behaviours, section 5). Time is pinned through the boundary's `now`.
 */

const T0 = 1_782_345_600;
const PLAINTEXT = "awaiting-confirm:9f2e";
const FROZEN = {
  code: -32602,
  message: "Invalid or expired requestState",
  data: { reason: "invalid_request_state" },
};
const CONFIRMED = { confirm: { action: "accept", content: { ok: true } } };

// --- Principals, known to both transports -----------------------------------------------------------

const ALICE: AuthInfo = {
  token: "tok-alice-51c0",
  clientId: "client-7f3a",
  issuer: "https://as.example",
  subject: "alice",
  scopes: [],
};
/** Another user of the same client. */
const BOB: AuthInfo = { ...ALICE, token: "tok-bob-8d2e", subject: "bob" };
/** The same subject name, signed in through another client. */
const ALICE_ELSEWHERE: AuthInfo = { ...ALICE, token: "tok-alice-elsewhere-02aa", clientId: "client-0b91" };
const PRINCIPALS = new Map([ALICE, BOB, ALICE_ELSEWHERE].map((auth) => [auth.token, auth]));

/** The bearer-token check the HTTP transport runs before anything else. */
async function authenticate(req: IncomingMessage): Promise<AuthInfo | undefined> {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const principal = PRINCIPALS.get(header.replace(/^Bearer /, ""));
  if (!principal) throw new HttpError(401, "Unauthorized: unknown token", { rpcCode: -32600 });
  return principal;
}

// --- Transports -----------------------------------------------------------------------------------------

interface Reply {
  response: JsonRpcResponse;
  /** Exactly what the client received. */
  raw: string;
  /** The HTTP status, over HTTP. */
  status: number | undefined;
}

interface Wire {
  readonly name: string;
  send(server: Server, request: JsonRpcRequest, as?: AuthInfo): Promise<Reply>;
  closeAll(): Promise<void>;
}

const memoryWire: Wire = {
  name: "in memory",
  async send(server, request, as) {
    const handled = await handle(server, request, as ? { auth: as } : {});
    return { response: handled.message, raw: JSON.stringify(handled.message), status: undefined };
  },
  async closeAll() {},
};

function httpWire(): Wire {
  const running = new Map<Server, Promise<RunningHttpServer>>();
  return {
    name: "over HTTP",
    async send(server, request, as) {
      let started = running.get(server);
      if (!started) {
        started = startHttpServer(server, { authenticate });
        running.set(server, started);
      }
      const { url } = await started;
      const reply = await post(url, request, as ? { headers: { authorization: `Bearer ${as.token}` } } : {});
      return { response: responseOf(reply), raw: reply.body, status: reply.status };
    },
    async closeAll() {
      const servers = [...running.values()];
      running.clear();
      for (const server of servers) await (await server).close();
    },
  };
}

// --- The server under test ------------------------------------------------------------------------------

interface Seen {
  method: string;
  target: string;
  requestState: string | undefined;
  /** False when the params the handler got have no requestState key at all. */
  hasKey: boolean;
}

interface ProbeOptions {
  name?: string;
  /** Without one the server has no boundary and state crosses verbatim. */
  security?: RequestStateSecurity;
  /** The boundary's defaultAudience; the server name unless given. */
  audience?: string | null;
  clock?: { t: number };
}

interface Probe {
  server: Server;
  logger: ReturnType<typeof recordingLogger>;
  /** What the tools/call, prompts/get and resources/read handlers saw, in call order. */
  seen: Seen[];
  /** What the tools/list and completion/complete handlers saw (HTTP also lists tools on its own). */
  others: Seen[];
}

const NAME_FORM = { type: "object" as const, properties: { ok: { type: "boolean" as const } } };

/**
 * A low-level Server with one of each flow:
 * - any tool (`deploy`, `alpha`, ...) asks once and mints PLAINTEXT (or `<subject>-secret` for an
 *   authenticated caller); its retry completes with the state it read;
 * - `rounds` carries `round-1`..`round-3` through state-only rounds, then completes;
 * - `forecast` never mints state; `ask-only` asks without state;
 * - every prompt and resource URI asks once with state, then completes.
 */
function probe(options: ProbeOptions = {}): Probe {
  const logger = recordingLogger();
  const name = options.name ?? "srv";
  const server = new Server({ name, version: "1.0.0" }, { logger });
  const seen: Seen[] = [];
  const others: Seen[] = [];
  const record = (method: string, target: string, params: { requestState?: string }) =>
    (isCarrierMethod(method) ? seen : others).push({
      method,
      target,
      requestState: params.requestState,
      hasKey: "requestState" in params,
    });

  if (options.security) {
    const clock = options.clock;
    server.use(
      requestStateBoundary(options.security, {
        defaultAudience: options.audience === undefined ? name : options.audience,
        logger,
        ...(clock ? { now: () => clock.t } : {}),
      }),
    );
  }
  server.onListTools((_ctx, params) => {
    record("tools/list", "", params as { requestState?: string });
    return { tools: [{ name: "deploy", inputSchema: { type: "object" } }] };
  });
  server.onCallTool((ctx, params) => {
    record("tools/call", params.name, params);
    const state = params.requestState;
    switch (params.name) {
      case "forecast":
        return { content: [{ type: "text", text: "sunny" }] };
      case "ask-only":
        if (params.inputResponses) return { content: [{ type: "text", text: `answered, state ${state}` }] };
        return inputRequired({ inputRequests: { confirm: elicitForm("Sure?", NAME_FORM) } });
      case "rounds": {
        const round = state === undefined ? 0 : Number(state.replace("round-", ""));
        if (round === 3) return { content: [{ type: "text", text: "done after round-3" }] };
        return inputRequired({ requestState: `round-${round + 1}` });
      }
      default:
        if (state !== undefined) return { content: [{ type: "text", text: `${params.name} read ${state}` }] };
        return inputRequired({
          inputRequests: { confirm: elicitForm("Deploy?", NAME_FORM) },
          requestState: ctx.auth?.subject ? `${ctx.auth.subject}-secret` : PLAINTEXT,
        });
    }
  });
  server.onGetPrompt((_ctx, params) => {
    record("prompts/get", params.name, params);
    if (params.requestState === undefined) {
      return inputRequired({
        inputRequests: { confirm: elicitForm("Which tone?", NAME_FORM) },
        requestState: `prompt-state:${params.name}`,
      });
    }
    return {
      messages: [{ role: "user", content: { type: "text", text: `prompt read ${params.requestState}` } }],
    };
  });
  server.onReadResource((_ctx, params) => {
    record("resources/read", params.uri, params);
    if (params.requestState === undefined) {
      return inputRequired({
        inputRequests: { confirm: elicitForm("Open it?", NAME_FORM) },
        requestState: `resource-state:${params.uri}`,
      });
    }
    return { contents: [{ uri: params.uri, text: `resource read ${params.requestState}` }] };
  });
  server.onComplete((_ctx, params) => {
    record("completion/complete", "", params as { requestState?: string });
    return { completion: { values: ["alpha"] } };
  });
  return { server, logger, seen, others };
}

// --- Requests and replies -------------------------------------------------------------------------------

/** A request from a client that can answer form elicitations. */
function req(method: string, params: Record<string, unknown> = {}): JsonRpcRequest {
  return rpcRequest(method, params, { capabilities: { elicitation: { form: {} } } });
}

interface Retry {
  requestState?: unknown;
  inputResponses?: Record<string, unknown>;
}

function callTool(name: string, args?: Record<string, unknown>, retry: Retry = {}): JsonRpcRequest {
  return req("tools/call", { name, ...(args === undefined ? {} : { arguments: args }), ...retry });
}

function retryTool(name: string, requestState: unknown, args?: Record<string, unknown>): JsonRpcRequest {
  return callTool(name, args, { requestState, inputResponses: CONFIRMED });
}

function resultOf(reply: Reply): Record<string, unknown> {
  if (!("result" in reply.response)) throw new Error(`expected a result, got ${reply.raw}`);
  return reply.response.result;
}

function errorOf(reply: Reply): { code: number; message: string; data?: unknown } {
  if (!("error" in reply.response)) throw new Error(`expected an error, got ${reply.raw}`);
  return reply.response.error;
}

/** The requestState of an input_required result. */
function stateOf(reply: Reply): string {
  const result = resultOf(reply);
  expect(result.resultType).toBe("input_required");
  expect(typeof result.requestState).toBe("string");
  return result.requestState as string;
}

function textOf(reply: Reply): string {
  const result = resultOf(reply);
  expect(result.resultType).toBe("complete");
  const content = result.content as { text: string }[] | undefined;
  const messages = result.messages as { content: { text: string } }[] | undefined;
  const contents = result.contents as { text: string }[] | undefined;
  const text = content?.[0]?.text ?? messages?.[0]?.content.text ?? contents?.[0]?.text;
  if (text === undefined) throw new Error(`no text in ${reply.raw}`);
  return text;
}

/** Opens a token with the policy's own codec and returns the claims envelope as minted. */
function claimsOf(security: RequestStateSecurity, token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(security.codec.unseal(token)).toString("utf8")) as Record<string, unknown>;
}

/** The same token with one character in the middle of its body replaced. */
function tampered(token: string): string {
  const at = Math.floor(token.length / 2);
  const replacement = token[at] === "A" ? "B" : "A";
  return token.slice(0, at) + replacement + token.slice(at + 1);
}

function warnings(p: Probe): string[] {
  return p.logger.records.filter((record) => record.level === "warn").map((record) => record.message);
}

function errorsLogged(p: Probe): LogRecord[] {
  return p.logger.records.filter((record) => record.level === "error");
}

/** Asserts the frozen error, and that the one new log line names `reason`. */
function expectRejected(p: Probe, reply: Reply, reason: string, method = "tools/call"): void {
  expect(errorOf(reply)).toEqual(FROZEN);
  expect(warnings(p).at(-1)).toBe(`requestState rejected on ${method}: ${reason}`);
}

// --- The suite, on both transports ----------------------------------------------------------------------

describe.each([memoryWire, httpWire()])("request-state boundary on the low-level Server, $name", (wire) => {
  afterEach(() => wire.closeAll());
  const send = (p: Probe, request: JsonRpcRequest, as?: AuthInfo) => wire.send(p.server, request, as);

  describe("sealing and opening", () => {
    it("[17] puts a sealed token on the wire and hands the handler exactly its plaintext on the echo", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const round1 = await send(p, callTool("deploy", { env: "prod" }));
      const token = stateOf(round1);
      expect(token.startsWith("v1.")).toBe(true);
      expect(token).not.toContain(PLAINTEXT);
      expect(round1.raw).not.toContain(PLAINTEXT);
      expect(round1.raw).not.toContain(Buffer.from(PLAINTEXT).toString("base64url"));

      const round2 = await send(p, retryTool("deploy", token, { env: "prod" }));
      expect(textOf(round2)).toBe(`deploy read ${PLAINTEXT}`);
      expect(p.seen.map((s) => s.requestState)).toEqual([undefined, PLAINTEXT]);
      expect(warnings(p)).toEqual([]);
    });

    it("[18] [31] binds the envelope to the server name and nothing else when no principal is known", async () => {
      const clock = { t: T0 };
      const security = RequestStateSecurity.ephemeral();
      const p = probe({ name: "srv", security, clock });
      const token = stateOf(await send(p, callTool("deploy", { env: "prod" })));
      const claims = claimsOf(security, token);
      expect(Object.keys(claims)).toEqual(["v", "iat", "exp", "m", "t", "a", "s", "aud"]);
      expect(claims).toEqual({
        v: 1,
        iat: T0,
        exp: T0 + 600,
        m: "tools/call",
        t: "deploy",
        a: "_fZbwPys4tn6ogEHRin4tQ",
        s: PLAINTEXT,
        aud: "srv",
      });
    });

    it("[19] without the boundary the low-level Server sends the state verbatim and takes the plaintext back", async () => {
      const p = probe();
      const token = stateOf(await send(p, callTool("deploy", { env: "prod" })));
      expect(token).toBe(PLAINTEXT);
      const round2 = await send(p, retryTool("deploy", PLAINTEXT, { env: "prod" }));
      expect(textOf(round2)).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[35] without the boundary too, requestState null reaches the handler as no state", async () => {
      const p = probe();
      const round1 = await send(p, callTool("deploy", undefined, { requestState: null }));
      expect(stateOf(round1)).toBe(PLAINTEXT);
      expect(p.seen).toEqual([
        { method: "tools/call", target: "deploy", requestState: undefined, hasKey: false },
      ]);
    });

    it("[20] seals resource template reads bound to the exact URI, and refuses the token on another URI", async () => {
      const clock = { t: T0 };
      const security = RequestStateSecurity.ephemeral();
      const p = probe({ security, clock });
      const uri = "notes://alpha/42?view=full";
      const token = stateOf(await send(p, req("resources/read", { uri })));
      expect(claimsOf(security, token)).toMatchObject({
        m: "resources/read",
        t: uri,
        a: EMPTY_ARGUMENTS_DIGEST,
        s: `resource-state:${uri}`,
      });

      const elsewhere = await send(
        p,
        req("resources/read", { uri: "notes://alpha/43?view=full", requestState: token }),
      );
      expectRejected(p, elsewhere, "request binding", "resources/read");
      const round2 = await send(
        p,
        req("resources/read", { uri, requestState: token, inputResponses: CONFIRMED }),
      );
      expect(textOf(round2)).toBe(`resource read resource-state:${uri}`);
    });

    it("[20] seals prompts the same way, bound to the prompt name and its arguments", async () => {
      const security = RequestStateSecurity.ephemeral();
      const p = probe({ security });
      const args = { who: "ada" };
      const token = stateOf(await send(p, req("prompts/get", { name: "greet", arguments: args })));
      expect(claimsOf(security, token)).toMatchObject({
        m: "prompts/get",
        t: "greet",
        a: argumentsDigest(args),
        s: "prompt-state:greet",
      });

      const otherArgs = await send(
        p,
        req("prompts/get", { name: "greet", arguments: { who: "bo" }, requestState: token }),
      );
      expectRejected(p, otherArgs, "request binding", "prompts/get");
      const round2 = await send(
        p,
        req("prompts/get", {
          name: "greet",
          arguments: args,
          requestState: token,
          inputResponses: CONFIRMED,
        }),
      );
      expect(textOf(round2)).toBe("prompt read prompt-state:greet");
    });

    it("[32] reseals every round in a fresh envelope minted at that round's time", async () => {
      const clock = { t: T0 };
      const security = RequestStateSecurity.ephemeral();
      const p = probe({ security, clock });
      const tokens = [stateOf(await send(p, callTool("rounds")))];
      for (const step of [1, 2]) {
        clock.t = T0 + 100 * step;
        tokens.push(stateOf(await send(p, callTool("rounds", undefined, { requestState: tokens.at(-1) }))));
      }
      clock.t = T0 + 300;
      const done = await send(p, callTool("rounds", undefined, { requestState: tokens.at(-1) }));

      expect(textOf(done)).toBe("done after round-3");
      expect(new Set(tokens).size).toBe(3);
      expect(tokens.map((token) => claimsOf(security, token))).toMatchObject([
        { iat: T0, exp: T0 + 600, s: "round-1" },
        { iat: T0 + 100, exp: T0 + 700, s: "round-2" },
        { iat: T0 + 200, exp: T0 + 800, s: "round-3" },
      ]);
      expect(p.seen.map((s) => s.requestState)).toEqual([undefined, "round-1", "round-2", "round-3"]);
    });

    it("[40] leaves an input_required result without state alone; its retry carries nothing to open", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const round1 = resultOf(await send(p, callTool("ask-only")));
      expect(round1.resultType).toBe("input_required");
      expect("requestState" in round1).toBe(false);

      const round2 = await send(p, callTool("ask-only", undefined, { inputResponses: CONFIRMED }));
      expect(textOf(round2)).toBe("answered, state undefined");
      expect(p.seen.at(-1)).toMatchObject({ requestState: undefined, hasKey: false });
    });

    it("[40] passes complete results and input_required results without state through as the identical object", async () => {
      const logger = recordingLogger();
      const server = new Server({ name: "srv", version: "1.0.0" }, { logger });
      const seen: { fromHandler?: ResultObject; fromBoundary?: ResultObject }[] = [];
      // Middleware on either side of the boundary sees what goes in and what comes out.
      server.use(async (_request, next) => {
        const fromBoundary = await next();
        const last = seen.at(-1);
        if (last) last.fromBoundary = fromBoundary;
        return fromBoundary;
      });
      server.use(requestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: "srv", logger }));
      server.use(async (_request, next) => {
        const fromHandler = await next();
        seen.push({ fromHandler });
        return fromHandler;
      });
      server.onCallTool((_ctx, params) =>
        params.name === "forecast"
          ? { content: [{ type: "text", text: "sunny" }] }
          : inputRequired({ inputRequests: { confirm: elicitForm("Sure?", NAME_FORM) } }),
      );
      await wire.send(server, callTool("forecast"));
      await wire.send(server, callTool("ask-only"));
      expect(seen).toHaveLength(2);
      for (const { fromHandler, fromBoundary } of seen) {
        expect(fromHandler).toBeDefined();
        expect(fromBoundary).toBe(fromHandler);
      }
      expect(seen.map(({ fromHandler }) => fromHandler?.resultType)).toEqual(["complete", "input_required"]);
    });

    it("[35] treats requestState null as absent: the handler runs and sees no state", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const round1 = await send(p, callTool("deploy", undefined, { requestState: null }));
      expect(stateOf(round1).startsWith("v1.")).toBe(true);
      const again = await send(p, retryTool("deploy", null));
      expect(stateOf(again).startsWith("v1.")).toBe(true);
      expect(p.seen).toEqual([
        { method: "tools/call", target: "deploy", requestState: undefined, hasKey: false },
        { method: "tools/call", target: "deploy", requestState: undefined, hasKey: false },
      ]);
      expect(warnings(p)).toEqual([]);
    });

    it("[36] leaves methods that carry no multi round-trip state untouched, inbound and outbound", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const listed = await send(p, req("tools/list", { requestState: "not-a-token" }));
      expect(resultOf(listed).tools).toHaveLength(1);
      const completed = await send(
        p,
        req("completion/complete", {
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "who", value: "a" },
          requestState: "not-a-token",
        }),
      );
      expect(resultOf(completed).completion).toMatchObject({ values: ["alpha"] });
      expect(p.seen).toEqual([]);
      expect(p.others.map((s) => [s.method, s.requestState])).toEqual([
        ["tools/list", "not-a-token"],
        ["completion/complete", "not-a-token"],
      ]);
      expect(warnings(p)).toEqual([]);
    });
  });

  describe("rejecting what the server did not mint for this request", () => {
    it("[21] refuses a tampered token with the frozen error; the handler never runs", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(p, callTool("deploy")));
      const reply = await send(p, retryTool("deploy", tampered(token)));
      expectRejected(p, reply, "seal");
      expect(p.seen).toHaveLength(1);
      // Refusing a forgery consumes nothing: the genuine token still completes.
      expect(textOf(await send(p, retryTool("deploy", token)))).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[22] expires a token ttl seconds after its round, and a refused retry does not use it up", async () => {
      const clock = { t: T0 };
      const p = probe({ security: RequestStateSecurity.ephemeral({ ttl: 600 }), clock });
      const token = stateOf(await send(p, callTool("deploy")));
      clock.t = T0 + 601;
      expectRejected(p, await send(p, retryTool("deploy", token)), "expired");
      clock.t = T0 + 599;
      expect(textOf(await send(p, retryTool("deploy", token)))).toBe(`deploy read ${PLAINTEXT}`);
      expect(p.seen).toHaveLength(2);
    });

    it("[22] measures fractional ttls in fractional seconds", async () => {
      const clock = { t: T0 + 0.9 };
      const p = probe({ security: RequestStateSecurity.ephemeral({ ttl: 0.5 }), clock });
      const early = stateOf(await send(p, callTool("deploy")));
      clock.t = T0 + 1.3;
      expect(textOf(await send(p, retryTool("deploy", early)))).toBe(`deploy read ${PLAINTEXT}`);

      clock.t = T0 + 2.0;
      const late = stateOf(await send(p, callTool("deploy")));
      clock.t = T0 + 2.6;
      expectRejected(p, await send(p, retryTool("deploy", late)), "expired");
    });

    it("[23] refuses a token minted more than 60 s in the future and accepts 30 s of skew", async () => {
      const clock = { t: T0 };
      const p = probe({ security: RequestStateSecurity.ephemeral(), clock });
      const token = stateOf(await send(p, callTool("deploy")));
      clock.t = T0 - 120;
      expectRejected(p, await send(p, retryTool("deploy", token)), "minted in the future");
      clock.t = T0 - 30;
      expect(textOf(await send(p, retryTool("deploy", token)))).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[24] binds a token to the tool that minted it", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(p, callTool("alpha")));
      expectRejected(p, await send(p, retryTool("beta", token)), "request binding");
      expect(p.seen.map((s) => s.target)).toEqual(["alpha"]);
      expect(textOf(await send(p, retryTool("alpha", token)))).toBe(`alpha read ${PLAINTEXT}`);
    });

    it("[25] binds a token to the arguments it was minted with, whatever their key order", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(p, callTool("deploy", { env: "prod", replicas: 3 })));
      expectRejected(
        p,
        await send(p, retryTool("deploy", token, { env: "staging", replicas: 3 })),
        "request binding",
      );
      expectRejected(p, await send(p, retryTool("deploy", token)), "request binding");
      const round2 = await send(p, retryTool("deploy", token, { replicas: 3, env: "prod" }));
      expect(textOf(round2)).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[25] digests arguments holding lone surrogates without failing, and tells them apart", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(p, callTool("deploy", { note: "\ud800" })));
      expectRejected(p, await send(p, retryTool("deploy", token, { note: "\udfff" })), "request binding");
      expect(textOf(await send(p, retryTool("deploy", token, { note: "\ud800" })))).toBe(
        `deploy read ${PLAINTEXT}`,
      );
    });

    it("[34] refuses a requestState that is not a string; the handler never runs and the server keeps serving", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      for (const value of [123, true, {}, ["v1.x"]]) {
        expectRejected(p, await send(p, retryTool("deploy", value)), "non-string requestState");
      }
      expect(p.seen).toEqual([]);
      expect(stateOf(await send(p, callTool("deploy"))).startsWith("v1.")).toBe(true);
    });

    it("[42] refuses state the server never minted, even on a tool that never mints any", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const reply = await send(
        p,
        callTool("forecast", { city: "Oslo" }, { requestState: "round-1-from-worker-a" }),
      );
      expect(errorOf(reply)).toEqual(FROZEN);
      expect(warnings(p)).toEqual(["requestState rejected on tools/call: malformed"]);
      expect(p.seen).toEqual([]);
    });

    it("[38] refuses codec-authentic payloads that are not a valid envelope", async () => {
      const security = new RequestStateSecurity({ codec: openCodec });
      const p = probe({ security });
      const token = stateOf(await send(p, callTool("deploy")));
      const claims = openClaims(token);
      const forgeries: [string, string][] = [
        [openToken("not json at all"), "malformed"],
        [openToken(JSON.stringify({ v: 1 })), "malformed"],
        [openToken(JSON.stringify({ ...claims, v: 2 })), "malformed"],
        [openToken(JSON.stringify({ ...claims, s: 42 })), "malformed"],
        [openToken(JSON.stringify(["v", 1])), "malformed"],
      ];
      for (const [forged, reason] of forgeries)
        expectRejected(p, await send(p, retryTool("deploy", forged)), reason);
      expect(p.seen).toHaveLength(1);
      // The genuine envelope re-encoded verbatim is accepted: what failed above was the content.
      expect(textOf(await send(p, retryTool("deploy", openToken(JSON.stringify(claims)))))).toBe(
        `deploy read ${PLAINTEXT}`,
      );
    });

    it("[38] refuses a forged principal claim that is not canonical base64url or not a string", async () => {
      const security = new RequestStateSecurity({ codec: openCodec });
      const p = probe({ security });
      const token = stateOf(await send(p, callTool("deploy"), ALICE));
      const claims = openClaims(token);
      expect(typeof claims.p).toBe("string");
      for (const forgedP of ["!!not-base64!!", `${String(claims.p)}=`, 42, { alice: true }]) {
        const forged = openToken(JSON.stringify({ ...claims, p: forgedP }));
        expectRejected(p, await send(p, retryTool("deploy", forged), ALICE), "principal");
      }
      expect(textOf(await send(p, retryTool("deploy", token), ALICE))).toBe("deploy read alice-secret");
    });
  });

  describe("principal binding", () => {
    it("[26] fails closed when a principal appears, disappears or changes between rounds", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const alices = stateOf(await send(p, callTool("deploy"), ALICE));
      expectRejected(p, await send(p, retryTool("deploy", alices)), "principal drift");

      const anonymous = stateOf(await send(p, callTool("deploy")));
      expectRejected(p, await send(p, retryTool("deploy", anonymous), ALICE), "principal drift");

      expectRejected(p, await send(p, retryTool("deploy", alices), BOB), "principal");
      expect(textOf(await send(p, retryTool("deploy", alices), ALICE))).toBe("deploy read alice-secret");
      expect(p.seen.map((s) => s.requestState)).toEqual([undefined, undefined, "alice-secret"]);
    });

    it("[27] tells apart two subjects of one client, and one subject of two clients", async () => {
      const p = probe({ security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(p, callTool("deploy"), ALICE));
      expectRejected(p, await send(p, retryTool("deploy", token), BOB), "principal");
      expectRejected(p, await send(p, retryTool("deploy", token), ALICE_ELSEWHERE), "principal");
      expect(textOf(await send(p, retryTool("deploy", token), ALICE))).toBe("deploy read alice-secret");
    });

    it("[29] salts the principal claim afresh on every mint, so two tokens of one user cannot be linked", async () => {
      const security = RequestStateSecurity.ephemeral();
      const p = probe({ security });
      const first = claimsOf(security, stateOf(await send(p, callTool("deploy"), ALICE)));
      const second = claimsOf(security, stateOf(await send(p, callTool("deploy"), ALICE)));
      expect(first.p).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(second.p).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(first.p).not.toBe(second.p);
      for (const claims of [first, second]) {
        expect(JSON.stringify(claims)).not.toContain("client-7f3a");
        expect(String(claims.p)).not.toContain("alice");
      }
    });

    it("[28] answers a bindPrincipal that throws or returns a non-string while sealing with a bare -32603", async () => {
      for (const [bindPrincipal, reason] of [
        [throwingBinding, "bindPrincipal threw"],
        [numericBinding, "bindPrincipal returned number, expected string or null"],
      ] as const) {
        const p = probe({ security: RequestStateSecurity.ephemeral({ bindPrincipal }) });
        const reply = await send(p, callTool("deploy"), ALICE);
        expect(reply.response).toEqual({
          jsonrpc: "2.0",
          id: reply.response.id,
          error: { code: -32603, message: "Internal error" },
        });
        for (const secret of [PLAINTEXT, "alice", "directory offline", "bindPrincipal", "requestState"]) {
          expect(reply.raw).not.toContain(secret);
        }
        expect(errorsLogged(p)).toHaveLength(1);
        expect(errorsLogged(p)[0]).toMatchObject({
          message: "refusing to seal requestState on tools/call",
          fields: { method: "tools/call", reason },
        });
      }
    });

    it("[28] answers a bindPrincipal that throws or returns a non-string while verifying with the frozen error", async () => {
      let mode: "ok" | "throw" | "number" = "ok";
      const bindPrincipal: BindPrincipal = (identity) => {
        if (mode === "throw") throw new Error("directory offline");
        if (mode === "number") return 7 as unknown as string;
        return identity?.subject ?? null;
      };
      const p = probe({ security: RequestStateSecurity.ephemeral({ bindPrincipal }) });
      const token = stateOf(await send(p, callTool("deploy"), ALICE));
      mode = "throw";
      expectRejected(p, await send(p, retryTool("deploy", token), ALICE), "principal binding error");
      mode = "number";
      expectRejected(
        p,
        await send(p, retryTool("deploy", token), ALICE),
        "bindPrincipal returned number, expected string or null",
      );
      mode = "ok";
      expect(textOf(await send(p, retryTool("deploy", token), ALICE))).toBe("deploy read alice-secret");
      expect(p.seen).toHaveLength(2);
    });
  });

  describe("audience and fleets", () => {
    it("[30] keeps two services that share a key from accepting each other's tokens", async () => {
      const key = randomBytes(32);
      const billing = probe({ name: "billing", security: new RequestStateSecurity({ keys: [key] }) });
      const payments = probe({ name: "payments", security: new RequestStateSecurity({ keys: [key] }) });
      const fromBilling = stateOf(await send(billing, callTool("deploy")));
      const fromPayments = stateOf(await send(payments, callTool("deploy")));
      expectRejected(payments, await send(payments, retryTool("deploy", fromBilling)), "audience");
      expectRejected(billing, await send(billing, retryTool("deploy", fromPayments)), "audience");
      expect(textOf(await send(billing, retryTool("deploy", fromBilling)))).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[30] lets an explicit audience override the server name", async () => {
      const key = randomBytes(32);
      const east = new RequestStateSecurity({ keys: [key], audience: "prod-fleet" });
      const a = probe({ name: "billing-east", security: east });
      const b = probe({
        name: "billing-west",
        security: new RequestStateSecurity({ keys: [key], audience: "prod-fleet" }),
      });
      const token = stateOf(await send(a, callTool("deploy")));
      expect(claimsOf(east, token).aud).toBe("prod-fleet");
      expect(textOf(await send(b, retryTool("deploy", token)))).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[30] rejects across a boundary with an audience and one without, in both directions", async () => {
      const key = randomBytes(32);
      const named = probe({ name: "billing", security: new RequestStateSecurity({ keys: [key] }) });
      const security = new RequestStateSecurity({ keys: [key] });
      const unnamed = probe({ name: "billing", security, audience: null });
      const withAudience = stateOf(await send(named, callTool("deploy")));
      const withoutAudience = stateOf(await send(unnamed, callTool("deploy")));
      expect(Object.keys(claimsOf(security, withoutAudience))).not.toContain("aud");
      expectRejected(unnamed, await send(unnamed, retryTool("deploy", withAudience)), "audience");
      expectRejected(named, await send(named, retryTool("deploy", withoutAudience)), "audience");
      expect(textOf(await send(unnamed, retryTool("deploy", withoutAudience)))).toBe(
        `deploy read ${PLAINTEXT}`,
      );
    });

    it("[41] lets one instance of a fleet finish a round another minted when key and name agree", async () => {
      const key = randomBytes(32);
      const workerA = probe({ name: "billing", security: new RequestStateSecurity({ keys: [key] }) });
      const workerB = probe({ name: "billing", security: new RequestStateSecurity({ keys: [key] }) });
      const token = stateOf(await send(workerA, callTool("deploy", { env: "prod" }), ALICE));
      const round2 = await send(workerB, retryTool("deploy", token, { env: "prod" }), ALICE);
      expect(textOf(round2)).toBe("deploy read alice-secret");
      expect(workerA.seen).toHaveLength(1);
      expect(workerB.seen.map((s) => s.requestState)).toEqual(["alice-secret"]);
    });

    it("[41] refuses a round from an instance named differently, while the minting instance completes it", async () => {
      const key = randomBytes(32);
      const first = probe({ name: "billing-1", security: new RequestStateSecurity({ keys: [key] }) });
      const second = probe({ name: "billing-2", security: new RequestStateSecurity({ keys: [key] }) });
      const token = stateOf(await send(first, callTool("deploy")));
      expectRejected(second, await send(second, retryTool("deploy", token)), "audience");
      expect(second.seen).toEqual([]);
      expect(textOf(await send(first, retryTool("deploy", token)))).toBe(`deploy read ${PLAINTEXT}`);
    });

    it("[41] refuses a round from an instance with another key as an unknown key", async () => {
      const first = probe({ name: "billing", security: RequestStateSecurity.ephemeral() });
      const restarted = probe({ name: "billing", security: RequestStateSecurity.ephemeral() });
      const token = stateOf(await send(first, callTool("deploy")));
      expectRejected(restarted, await send(restarted, retryTool("deploy", token)), "unknown key");
    });
  });

  describe("codec failures", () => {
    it("[37] fails closed on a codec that throws anything but InvalidRequestState, and logs what it threw", async () => {
      const codec = new ScriptedCodec();
      const p = probe({ security: new RequestStateSecurity({ codec }) });
      const token = stateOf(await send(p, callTool("deploy")));
      codec.unsealFailure = new TypeError("kms unreachable");
      const reply = await send(p, retryTool("deploy", token));
      expectRejected(p, reply, "codec error");
      expect(reply.raw).not.toContain("kms");
      expect(p.logger.records.at(-1)?.fields).toMatchObject({
        err: { name: "TypeError", message: "kms unreachable" },
      });
      expect(p.seen).toHaveLength(1);
    });

    it("[37] keeps an InvalidRequestState reason from a codec in the log only", async () => {
      const codec = new ScriptedCodec();
      const p = probe({ security: new RequestStateSecurity({ codec }) });
      const token = stateOf(await send(p, callTool("deploy")));
      codec.unsealFailure = new InvalidRequestState("boom");
      const reply = await send(p, retryTool("deploy", token));
      expectRejected(p, reply, "boom");
      expect(reply.raw).not.toContain("boom");
    });

    it("[37] answers a codec whose seal throws with a bare -32603 and none of its text", async () => {
      const codec = new ScriptedCodec();
      codec.sealFailure = new Error("hsm offline at 10.0.0.7");
      const p = probe({ security: new RequestStateSecurity({ codec }) });
      const reply = await send(p, callTool("deploy"));
      expect(errorOf(reply)).toEqual({ code: -32603, message: "Internal error" });
      for (const secret of ["hsm", "10.0.0.7", PLAINTEXT]) expect(reply.raw).not.toContain(secret);
      expect(errorsLogged(p)).toEqual([
        {
          level: "error",
          message: "refusing to seal requestState on tools/call",
          fields: expect.objectContaining({
            method: "tools/call",
            reason: "codec seal failed",
            err: expect.objectContaining({ message: "hsm offline at 10.0.0.7" }),
          }),
        },
      ]);
    });
  });

  describe("what clients and logs learn", () => {
    it("[39] answers tampered, expired and rebound echoes identically, with one warning each and no secrets logged", async () => {
      const clock = { t: T0 };
      const p = probe({ security: RequestStateSecurity.ephemeral(), clock });
      const token = stateOf(await send(p, callTool("deploy", { env: "prod" }), ALICE));
      const replies = [await send(p, retryTool("deploy", tampered(token), { env: "prod" }), ALICE)];
      replies.push(await send(p, retryTool("deploy", token, { env: "prod" }), BOB));
      replies.push(await send(p, retryTool("deploy", token, { env: "staging" }), ALICE));
      clock.t = T0 + 601;
      replies.push(await send(p, retryTool("deploy", token, { env: "prod" }), ALICE));

      for (const reply of replies) {
        expect(errorOf(reply)).toEqual(FROZEN);
        expect(reply.status).toBe(replies[0]?.status);
      }
      expect(warnings(p)).toEqual([
        "requestState rejected on tools/call: seal",
        "requestState rejected on tools/call: principal",
        "requestState rejected on tools/call: request binding",
        "requestState rejected on tools/call: expired",
      ]);
      expect(p.logger.records.filter((record) => record.level !== "warn")).toEqual([]);
      const logged = JSON.stringify(p.logger.records);
      const principal = '["client-7f3a","https://as.example","alice"]';
      for (const secret of [
        token,
        tampered(token),
        "alice-secret",
        "alice",
        "client-7f3a",
        principal,
        ALICE.token,
      ]) {
        expect(logged).not.toContain(secret);
      }
      expect(p.seen).toHaveLength(1);
    });
  });
});

// --- Outside any transport ------------------------------------------------------------------------------

describe("request-state boundary as middleware", () => {
  function middlewareRequest(method: string, params: Record<string, unknown>): MiddlewareRequest {
    const context = createRequestContext({
      requestId: 1,
      method,
      meta: RequestMetaSchema.parse(envelope()),
      signal: new AbortController().signal,
      auth: undefined,
      transport: { kind: "memory" },
      sink: undefined,
    });
    return { method, params, context };
  }

  it("[36] lets a custom method's requestState pass unverified inbound and unsealed outbound", async () => {
    const logger = recordingLogger();
    const boundary = requestStateBoundary(RequestStateSecurity.ephemeral(), {
      defaultAudience: "srv",
      logger,
    });
    const request = middlewareRequest("example/mrtr", { requestState: "plain-inbound" });
    const result = { resultType: "input_required", requestState: "plain-outbound" };
    const out = await boundary(request, async () => {
      expect(request.params.requestState).toBe("plain-inbound");
      return result;
    });
    expect(out).toBe(result);
    expect(out.requestState).toBe("plain-outbound");
    expect(logger.records).toEqual([]);
  });

  it("[35] removes a requestState null itself, whoever dispatches to it", async () => {
    const logger = recordingLogger();
    const boundary = requestStateBoundary(RequestStateSecurity.ephemeral(), {
      defaultAudience: "srv",
      logger,
    });
    const request = middlewareRequest("tools/call", { name: "deploy", requestState: null });
    const out = await boundary(request, async () => {
      expect("requestState" in request.params).toBe(false);
      return { resultType: "complete", content: [] };
    });
    expect(out).toEqual({ resultType: "complete", content: [] });
    expect(logger.records).toEqual([]);
  });

  it("[24] refuses state on a request that names no tool, before any handler could mint for it", async () => {
    const logger = recordingLogger();
    const security = RequestStateSecurity.ephemeral();
    const boundary = requestStateBoundary(security, { defaultAudience: "srv", logger });
    const token = security.seal(PLAINTEXT, { method: "tools/call", target: "deploy" }, { audience: "srv" });
    const request = middlewareRequest("tools/call", { name: ["deploy"], requestState: token });
    let ran = false;
    await expect(
      boundary(request, async () => {
        ran = true;
        return { resultType: "complete", content: [] };
      }),
    ).rejects.toMatchObject(FROZEN);
    expect(ran).toBe(false);
    expect(logger.records.map((record) => record.message)).toEqual([
      "requestState rejected on tools/call: request binding",
    ]);
  });
});

// --- Codecs -------------------------------------------------------------------------------------------

/** Authenticates nothing: lets a test forge "validly sealed" payloads, as a key holder could. */
const OPEN_PREFIX = "open.";
const openCodec: RequestStateCodec = {
  seal: (payload) => OPEN_PREFIX + Buffer.from(payload).toString("base64url"),
  unseal: (token) => {
    if (!token.startsWith(OPEN_PREFIX)) throw new InvalidRequestState("malformed");
    return new Uint8Array(Buffer.from(token.slice(OPEN_PREFIX.length), "base64url"));
  },
};

function openToken(payload: string): string {
  return openCodec.seal(Buffer.from(payload, "utf8"));
}

function openClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(openCodec.unseal(token)).toString("utf8")) as Record<string, unknown>;
}

/** The built-in codec, with failures switched on by the test. */
class ScriptedCodec implements RequestStateCodec {
  readonly #inner = new AesGcmRequestStateCodec([randomBytes(32)]);
  sealFailure: Error | undefined;
  unsealFailure: Error | undefined;

  seal(payload: Uint8Array): string {
    if (this.sealFailure) throw this.sealFailure;
    return this.#inner.seal(payload);
  }

  unseal(token: string): Uint8Array {
    if (this.unsealFailure) throw this.unsealFailure;
    return this.#inner.unseal(token);
  }
}

const throwingBinding: BindPrincipal = () => {
  throw new Error("directory offline");
};
const numericBinding: BindPrincipal = () => 42 as unknown as string;
