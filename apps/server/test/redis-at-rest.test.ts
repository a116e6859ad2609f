import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { dumpRedis, RedisServer } from "@roundtrip/test-services";
import {
  another,
  approvalUrlOf,
  CONFIRMED,
  createServiceAnswers,
  OPENED,
  type Retry,
  textOf,
} from "@roundtrip/test-support/rounds";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAcross } from "./support/approval-page.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { oneRound } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * What a fleet leaves in its Redis after real flows: every key, whatever its type, read back and
 * searched for what the flows sent and received. Redis holds approvals, the once-ledger and DPoP proof
 * ids; none of it may show an answer, an argument, a result, a requestState or a token.
 */
let redis: RedisServer;
let as: LocalAuthServer;
let alice: string;
let keyDir: string;
let a: RunningServer;
let b: RunningServer;
const watch = new LeakWatch();

beforeAll(async () => {
  redis = await RedisServer.start();
  as = await startAuthorizationServer();
  alice = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-at-rest-keys-"));
  const keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
  const env = serverEnvironment(as, {
    SERVER_NAME: "roundtrip-at-rest",
    REQUEST_STATE_KEY_FILE: keyFile,
    REDIS_URL: redis.url,
  });
  a = await startServer(env);
  b = await startServer(env);
}, 180_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await as?.close();
  await redis?.stop();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

const call = (server: RunningServer, name: string, args: Record<string, unknown>, retry: Retry = {}) =>
  oneRound(server.url, alice, watch, name, args, retry);

/** Remembers `value` and what would show it as plainly: its base64 and base64url at any alignment. */
function rememberInClear(what: string, value: string): void {
  watch.remember(what, value);
  for (const pad of ["", "x", "xx"]) {
    for (const encoding of ["base64", "base64url"] as const) {
      const encoded = Buffer.from(pad + value).toString(encoding);
      // The characters that depend only on `value`: neither on the padding nor on what follows.
      const stable = encoded.slice(pad.length === 0 ? 0 : 4, -4);
      watch.remember(`${what} (${encoding})`, stable);
    }
  }
}

const SERVICE = "quartz-ledger";
const DEPLOY = { service: SERVICE, env: "production" };
const CHOICES = { runtime: "python3.12", tier: "medium" };

describe("a fleet's Redis after create_service, an approved deploy and repeated once-rounds", () => {
  it("holds no answer, argument, result, requestState or token in clear", async () => {
    // create_service: runtime and size, then the confirmation quoting them; its completing round twice.
    const args = { name: SERVICE };
    const choose = another(await call(a, "create_service", args));
    const chosen = {
      requestState: choose.requestState,
      inputResponses: createServiceAnswers(choose, CHOICES),
    };
    const confirm = another(await call(b, "create_service", args, chosen));
    // The round that asked for the confirmation, repeated: answered from the once-ledger.
    another(await call(a, "create_service", args, chosen));
    const completing = {
      requestState: confirm.requestState,
      inputResponses: createServiceAnswers(confirm, CHOICES),
    };
    const created = textOf(await call(a, "create_service", args, completing));
    expect(created).toBe(`Created service ${SERVICE} on ${CHOICES.runtime}, size ${CHOICES.tier}`);
    expect(textOf(await call(b, "create_service", args, completing))).toBe(created);

    // deploy: the confirmation, the approval page on the other instance, then the deployment, twice.
    const asked = another(await call(a, "deploy", DEPLOY));
    const approval = another(
      await call(b, "deploy", DEPLOY, { requestState: asked.requestState, inputResponses: CONFIRMED }),
    );
    const url = approvalUrlOf(approval);
    await approveAcross(a, b, url);
    const finishing = { requestState: approval.requestState, inputResponses: OPENED };
    const deployed = textOf(await call(a, "deploy", DEPLOY, finishing));
    expect(deployed).toMatch(new RegExp(`^Deployed rel-[0-9a-f]{32} of ${SERVICE} to production$`));
    expect(textOf(await call(b, "deploy", DEPLOY, finishing))).toBe(deployed);
    const record = await a.server.approvals.status(new URL(url).pathname.split("/").pop() ?? "");
    expect(record?.state).toBe("deployed");

    rememberInClear("the service argument", SERVICE);
    rememberInClear("the env argument", DEPLOY.env);
    rememberInClear("the runtime answer", CHOICES.runtime);
    rememberInClear("the create_service result", created);
    rememberInClear("the deploy result", deployed);
    rememberInClear("a question", `Create ${SERVICE} on ${CHOICES.runtime}, size ${CHOICES.tier}?`);
    rememberInClear("the requester's issuer", record?.requester.issuer ?? "");
    rememberInClear("the requester's client", record?.requester.clientId ?? "");
    rememberInClear("the access token's claims", alice.split(".")[1] ?? "");

    const { keys, text } = await dumpRedis(redis.url);
    // The once-ledger's rounds and outcomes, and the approval.
    expect(keys.some((key) => key.startsWith("roundtrip:once:") && key.endsWith(":outcome"))).toBe(true);
    expect(keys.some((key) => key.startsWith("roundtrip:sealed-approval:"))).toBe(true);
    expect(watch.size).toBeGreaterThan(40);
    expect(watch.leaksIn(text)).toEqual([]);
  });
});
