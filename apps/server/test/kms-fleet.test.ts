import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import type { KMSClient } from "@aws-sdk/client-kms";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { type InputRequiredResult, McpError } from "@roundtrip/sdk";
import { generateWrappedDataKey } from "@roundtrip/sealing/kms";
import {
  adminClient,
  clientConfigFor,
  createKey,
  useDummyAwsEnvironment,
} from "@roundtrip/test-kms/kms-fixture";
import { type MotoServer, READY_WITHIN_MS, startMotoServer } from "@roundtrip/test-kms/moto-server";
import { refusedPort, waitFor } from "@roundtrip/test-services";
import { another, CONFIRMED, createServiceAnswers, type Retry } from "@roundtrip/test-support/rounds";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { processState, type SharedState } from "../src/state/shared-state.js";
import {
  CHILD_START_WITHIN_MS,
  type ChildServer,
  runChildToExit,
  startChildServer,
} from "./support/child-server.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { heldProxy } from "./support/held-proxy.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient, oneRound } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const FLEET = "roundtrip-fleet";
const ARGS = { service: "ledger", env: "production" };

let moto: MotoServer;
let admin: KMSClient;
let as: LocalAuthServer;
let alice: string;
let keyAlias: string;
/** Two wrapped data keys, minted under the same KMS key for the fleet's service name. */
let older: string;
let newer: string;
const watch = new LeakWatch();
const servers: RunningServer[] = [];
const proxies: { close(): Promise<void> }[] = [];
const children: ChildServer[] = [];

beforeAll(async () => {
  useDummyAwsEnvironment();
  moto = await startMotoServer();
  admin = adminClient(moto.url);
  ({ alias: keyAlias } = await createKey(admin));
  const mint = async () =>
    (
      await generateWrappedDataKey({
        keyId: keyAlias,
        service: FLEET,
        clientConfig: clientConfigFor(moto.url),
      })
    ).wrappedKey;
  older = await mint();
  newer = await mint();
  watch.remember("wrapped key", older);
  watch.remember("wrapped key", newer);
  as = await startAuthorizationServer();
  alice = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
}, READY_WITHIN_MS + 30_000);

afterAll(async () => {
  for (const child of children) await child.stop();
  for (const server of servers) await server.close();
  for (const proxy of proxies) await proxy.close();
  await as?.close();
  admin?.destroy();
  await moto?.stop();
  vi.unstubAllEnvs();
});

/** The fleet's environment: one public URL, one server name, the same wrapped keys on every instance. */
function fleetEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  return serverEnvironment(as, {
    SERVER_NAME: FLEET,
    KMS_WRAPPED_KEYS: `${older},${newer}`,
    KMS_KEY_ID: keyAlias,
    KMS_ENDPOINT: moto.url,
    ...overrides,
  });
}

async function inProcess(env: Record<string, string>, sharedState?: SharedState): Promise<RunningServer> {
  const server = await startServer(env, sharedState ? { sharedState } : {});
  servers.push(server);
  return server;
}

async function child(env: Record<string, string>): Promise<ChildServer> {
  const started = await startChildServer(env);
  children.push(started);
  return started;
}

/** One deploy round by alice against `url`, handing back what the server answered. */
const round = (url: string, retry: Retry = {}) => oneRound(url, alice, watch, "deploy", ARGS, retry);

/** Records the approval in `server`'s store for whoever asked, as its approval page would. */
async function approveAsRequester(server: RunningServer, release: string): Promise<void> {
  const record = await server.server.approvals.status(release);
  if (!record) throw new Error(`no approval requested for ${release} on this instance`);
  expect(await server.server.approvals.approve(release, record.requester)).toBe("approved");
}

/** The reason a server process that could not load its keys logged before it exited 1. */
async function keyFailure(env: Record<string, string>): Promise<string | undefined> {
  const exit = await runChildToExit(env);
  expect(exit.code).toBe(1);
  return exit.output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg?: string; reason?: string })
    .find((line) => line.msg === "request-state keys failed to load")?.reason;
}

/** Tests that start a server process wait for its cold start, on top of their own work. */
const WITH_CHILD = { timeout: CHILD_START_WITHIN_MS + 30_000 };

describe("request-state keys unwrapped by KMS (moto_server)", () => {
  it("stays unready, and closed to MCP traffic, until KMS has answered", async () => {
    const slowKms = await heldProxy(moto.url);
    proxies.push(slowKms);
    const server = await startServer(fleetEnvironment({ KMS_ENDPOINT: slowKms.url }), { waitForKeys: false });
    servers.push(server);
    // The call to KMS reaches the proxy in its own time, which the requests below need not outlast.
    await waitFor("the key unwrapping call to reach KMS", async () => slowKms.arrived() > 0);

    const ready = await fetch(`${server.origin}/readyz`);
    const mcp = await fetch(server.url, { method: "POST", headers: { authorization: `Bearer ${alice}` } });
    expect([ready.status, server.server.keyring.status]).toEqual([503, "loading"]);
    expect([mcp.status, mcp.headers.get("retry-after")]).toEqual([503, "1"]);

    slowKms.release();
    await server.server.keyring.ready;

    expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
    const client = mcpClient(server.url, alice, watch, {
      onElicit: async (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        await approveAsRequester(server, params.url.split("/").pop() ?? "");
        return { action: "accept" };
      },
    });
    const result = await client.callTool("deploy", ARGS);
    expect(result.content).toEqual([
      { type: "text", text: expect.stringMatching(/^Deployed rel-[0-9a-f]{32} of ledger to production$/) },
    ]);
    expect(server.logs.lines().find((line) => line.keySource === "kms")?.msg).toBe(
      "request-state keys unwrapped by KMS",
    );
  });

  it(
    "lets a second process with the same wrapped keys and name complete rounds the first minted",
    WITH_CHILD,
    async () => {
      const first = await inProcess(fleetEnvironment());
      const second = await child(fleetEnvironment());

      // The child mints; the in-process instance opens its state and carries the flow to the end.
      // create_service keeps nothing between rounds but its sealed state, so the two processes need
      // no shared store; deploy records its release where it mints it (shared-state.test.ts runs the
      // fleet on one Redis).
      const args = { name: "billing" };
      const answer = (result: InputRequiredResult) =>
        createServiceAnswers(result, { runtime: "node22", tier: "small" });
      const call = (url: string, retry: Retry = {}) =>
        oneRound(url, alice, watch, "create_service", args, retry);
      const asked = another(await call(second.url));
      const chosen = another(
        await call(first.url, { requestState: asked.requestState, inputResponses: answer(asked) }),
      );
      const done = await call(first.url, {
        requestState: chosen.requestState,
        inputResponses: answer(chosen),
      });

      expect(done).toMatchObject({
        resultType: "complete",
        content: [{ type: "text", text: "Created service billing on node22, size small" }],
      });
    },
  );

  it("refuses those rounds on an instance with the same keys under another server name", async () => {
    const first = await inProcess(fleetEnvironment());
    const renamed = await inProcess(
      fleetEnvironment({ SERVER_NAME: "roundtrip-fleet-2", KMS_SERVICE_NAME: FLEET }),
    );

    const asked = another(await round(first.url));
    const refusal = await round(renamed.url, {
      requestState: asked.requestState,
      inputResponses: CONFIRMED,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(refusal).toBeInstanceOf(McpError);
    expect((refusal as McpError).message).toBe("Invalid or expired requestState");
    expect(renamed.logs.lines().some((line) => line.reason === "audience")).toBe(true);
  });

  it("rotates: the new key first still opens the old key's rounds, dropping the old key refuses them", async () => {
    // One store for the three, as a fleet shares one: the release minting records is there for the others.
    const state = processState();
    const minting = await inProcess(fleetEnvironment({ KMS_WRAPPED_KEYS: `${older},${newer}` }), state);
    const rotated = await inProcess(fleetEnvironment({ KMS_WRAPPED_KEYS: `${newer},${older}` }), state);
    const retired = await inProcess(fleetEnvironment({ KMS_WRAPPED_KEYS: newer }), state);

    const asked = another(await round(minting.url));
    const carried = await round(rotated.url, { requestState: asked.requestState, inputResponses: CONFIRMED });
    const refused = await round(retired.url, {
      requestState: asked.requestState,
      inputResponses: CONFIRMED,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(Object.keys(another(carried).inputRequests ?? {})).toEqual(["approval"]);
    expect((refused as McpError).code).toBe(-32602);
    expect(retired.logs.lines().some((line) => line.reason === "unknown key")).toBe(true);
  });

  it(
    "exits 1 with a message that names the key and the fix when KMS refuses to unwrap",
    WITH_CHILD,
    async () => {
      const exit = await runChildToExit(fleetEnvironment({ KMS_SERVICE_NAME: "another-service" }));

      const failure = exit.output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; reason?: string })
        .find((line) => line.msg === "request-state keys failed to load");
      expect(exit.code).toBe(1);
      expect(failure?.reason).toMatch(
        /^Cannot unwrap wrappedKeys\[0\] .* for service "another-service": InvalidCiphertextException/,
      );
      expect(failure?.reason).toContain("roundtrip-kms-keygen --key-id");
      // Named as the operator set it: the variables this server read, and where the service came from.
      expect(failure?.reason).toContain(`KMS_ENDPOINT=${moto.url}`);
      expect(failure?.reason).toContain('encryption context service="another-service" from KMS_SERVICE_NAME');
      expect(watch.leaksIn(exit.output)).toEqual([]);
    },
  );

  it(
    "names KMS_ENDPOINT, not AWS_ENDPOINT_URL_KMS, when the configured endpoint is unreachable",
    WITH_CHILD,
    async () => {
      const url = `http://127.0.0.1:${await refusedPort()}`;
      const failure = await keyFailure(
        fleetEnvironment({ KMS_ENDPOINT: url, AWS_ENDPOINT_URL_KMS: "http://127.0.0.1:1" }),
      );
      expect(failure).toMatch(/ECONNREFUSED/);
      expect(failure).toContain(`unreachable at the configured endpoint ${url}`);
      expect(failure).toContain(`KMS_ENDPOINT=${url}`);
      expect(failure).not.toContain("AWS_ENDPOINT_URL_KMS");
    },
  );

  it("takes an empty AWS_REGION as unset, and says to set it", WITH_CHILD, async () => {
    const failure = await keyFailure(fleetEnvironment({ AWS_REGION: "", AWS_DEFAULT_REGION: "" }));
    expect(failure).toContain("MissingRegion");
    expect(failure).toContain("Set AWS_REGION");
  });

  it("drains an in-flight request on SIGTERM, then exits 0", WITH_CHILD, async () => {
    const server = await child(fleetEnvironment());
    const body = JSON.stringify(discoverRequest());
    const request = httpRequest(server.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${alice}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
        "x-request-id": "drain-check",
      },
    });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      request.on("response", resolve);
      request.on("error", reject);
    });
    request.write(body.slice(0, 20));
    await server.waitForLog((line) => line.reqId === "drain-check", "the in-flight request");

    server.kill("SIGTERM");
    await server.waitForLog(
      (line) => line.msg === "shutting down: draining in-flight requests",
      "the shutdown",
    );
    request.end(body.slice(20));

    const answered = await response;
    const text = await readAll(answered);
    expect(answered.statusCode).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ id: 7, result: { resultType: "complete" } });
    // Told to close, so a keep-alive client cannot hold the connection, and the shutdown, open.
    expect(answered.headers.connection).toBe("close");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it("does not wait on a connection that never sent a request when it drains", WITH_CHILD, async () => {
    // Short, so that waiting on the connection would show as exit code 1 rather than a slow pass.
    const server = await child(fleetEnvironment({ SHUTDOWN_TIMEOUT_MS: "3000" }));
    const { port, hostname } = new URL(server.url);
    const idle = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => {
      idle.once("connect", resolve);
      idle.once("error", reject);
    });
    const closed = new Promise<void>((resolve) => idle.once("close", () => resolve()));
    idle.on("error", () => {});

    server.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await closed;
  });

  it("logged, in every process, no token, requestState or wrapped key", () => {
    const text = [...servers.map((s) => s.logs.text()), ...children.map((c) => c.output())].join("\n");
    expect(watch.size).toBeGreaterThan(5);
    expect(text).toContain("request completed");
    expect(watch.leaksIn(text)).toEqual([]);
  });
});

function discoverRequest() {
  return {
    jsonrpc: "2.0",
    id: 7,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "drain-check", version: "0.0.0" },
      },
    },
  };
}

async function readAll(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
