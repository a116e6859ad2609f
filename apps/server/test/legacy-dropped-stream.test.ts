import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { RedisServer } from "@roundtrip/test-services";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, startChildServer } from "./support/child-server.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import type { LogLine } from "./support/log-capture.js";
import {
  type LegacySession,
  openLegacySession,
  type SseEvent,
  SseReader,
  send,
} from "./support/raw-legacy.js";

/**
 * The reference server as a process, and a 2025-era host that calls create_service (which asks the
 * user) over an SSE response, drops that response while the questions are pending, then cancels the
 * call or ends the session; in a fleet, the cancellation goes to another instance than the one
 * holding the call. Each process must live through it and answer the next request.
 */

const responseCloses = fileURLToPath(new URL("./support/response-closes.mjs", import.meta.url));
const CALL_ID = 7;
const CREATE = {
  jsonrpc: "2.0",
  id: CALL_ID,
  method: "tools/call",
  params: { name: "create_service", arguments: { name: "ledger" } },
};

let as: LocalAuthServer;
let auth: Record<string, string>;
let keyDir: string;
let keyFile: string;
let redis: RedisServer | undefined;
const children: ChildServer[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer();
  const { accessToken } = await as.authorizationCodeToken("alice", "mcp:tools");
  auth = { authorization: `Bearer ${accessToken}` };
  keyDir = await mkdtemp(join(tmpdir(), "roundtrip-dropped-stream-"));
  keyFile = join(keyDir, "keys");
  await writeFile(keyFile, `${randomBytes(32).toString("hex")}\n`);
  await chmod(keyFile, 0o600);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
  await redis?.stop();
  redis = undefined;
});

afterAll(async () => {
  await as?.close();
  await rm(keyDir, { recursive: true, force: true });
});

async function startInstance(overrides: Record<string, string> = {}): Promise<ChildServer> {
  const child = await startChildServer(
    serverEnvironment(as, {
      REQUEST_STATE_KEY_FILE: keyFile,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import ${responseCloses}`].filter(Boolean).join(" "),
      ...overrides,
    }),
  );
  children.push(child);
  return child;
}

/** Whether the process still answers HTTP at all (any status). */
async function answers(child: ChildServer): Promise<boolean> {
  try {
    await (await fetch(child.url)).body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** What the process wrote besides its JSON log: how it crashed, when it did. */
function crashReport(child: ChildServer): string {
  return child
    .output()
    .split("\n")
    .filter((line) => !line.startsWith("{"))
    .join("\n");
}

/**
 * What `step` settles to, once `child` is seen still answering; when it is not (it crashed), a
 * failure naming its exit and how it crashed.
 */
async function alive<T>(child: ChildServer, step: Promise<T>, what: string): Promise<T> {
  const died = child.exited.then((exit) => {
    throw new Error(`the server process exited (${JSON.stringify(exit)}) at ${what}:\n${crashReport(child)}`);
  });
  died.catch(() => undefined);
  try {
    return await Promise.race([step, died]);
  } finally {
    if (!(await answers(child))) await died;
  }
}

interface Dropped {
  /** The last question's event, to resume after. */
  last: SseEvent;
  /** The ids of the questions the server asked, in order. */
  asked: unknown[];
}

/**
 * Calls create_service on `child` over an SSE response, reads both questions of its first round,
 * drops the response and waits until the server saw it close.
 */
async function dropWhileAsked(child: ChildServer, session: LegacySession): Promise<Dropped> {
  const stream = await alive(child, SseReader.post(session, CREATE), "the call's SSE stream");
  const first = await alive(child, stream.next(), "the first question");
  const second = await alive(child, stream.next(), "the second question");
  expect([first?.message.method, second?.message.method]).toEqual([
    "elicitation/create",
    "elicitation/create",
  ]);
  const before = new Set(child.lines());
  stream.drop();
  await child.waitForLog(
    (line: LogLine) => !before.has(line) && line.msg === "response closed" && line.method === "POST",
    "that the call's response closed",
  );
  const ids = [first, second].map((event) => (event?.message as { id?: unknown } | undefined)?.id);
  return { last: second as SseEvent, asked: ids };
}

/** Both questions cancelled on the client, and no response: what a cancelled call leaves on its stream. */
function expectQuestionsCancelled(events: SseEvent[], asked: unknown[]): void {
  expect(events.map((event) => event.message)).toEqual(
    asked.map((requestId) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId, reason: expect.any(String) },
    })),
  );
}

async function expectServing(child: ChildServer, session: LegacySession): Promise<void> {
  const listed = await alive(
    child,
    send(session, { jsonrpc: "2.0", id: 99, method: "tools/list" }),
    "tools/list",
  );
  expect(listed.status).toBe(200);
  expect(listed.messages[0]).toMatchObject({ id: 99, result: { tools: expect.any(Array) } });
}

const cancellation = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: CALL_ID } };

describe("the reference server, when a 2025-era host drops a call's SSE response while it is asked", () => {
  it("lives through the call's cancellation, and the stream resumes with its questions cancelled", async () => {
    const child = await startInstance();
    const session = await openLegacySession(child.url, auth);
    const { last, asked } = await dropWhileAsked(child, session);
    const cancel = await alive(child, send(session, cancellation), "the answer to the cancellation");
    expect(cancel.status).toBe(202);
    const resumed = await alive(child, SseReader.resume(session, last.id as string), "the resumed stream");
    expectQuestionsCancelled(await alive(child, resumed.rest(), "the resumed stream's events"), asked);
    await expectServing(child, session);
  });

  it("lives through the session's end (DELETE), and serves a new session", async () => {
    const child = await startInstance();
    const session = await openLegacySession(child.url, auth);
    await dropWhileAsked(child, session);
    const ended = await alive(
      child,
      fetch(child.url, { method: "DELETE", headers: session.headers }),
      "the answer to DELETE",
    );
    expect(ended.status).toBe(200);
    await expectServing(child, await alive(child, openLegacySession(child.url, auth), "a new session"));
  });

  it("in a fleet, the instance holding the call lives through a cancellation sent to another", async () => {
    redis = await RedisServer.start();
    const a = await startInstance({ REDIS_URL: redis.url, INSTANCE_NAME: "instance-a" });
    const b = await startInstance({ REDIS_URL: redis.url, INSTANCE_NAME: "instance-b" });
    const session = await openLegacySession(a.url, auth);
    const { last, asked } = await dropWhileAsked(b, { ...session, url: b.url });
    const cancel = await alive(a, send(session, cancellation), "the answer to the cancellation on A");
    expect(cancel.status).toBe(202);
    // The cancellation reaches B over the bus, in its own time: the call's id is free again once B
    // has stopped the call (until then B refuses the id as in use).
    const onB = { ...session, url: b.url };
    for (const deadline = Date.now() + 60_000; ; ) {
      const ping = await alive(b, send(onB, { jsonrpc: "2.0", id: CALL_ID, method: "ping" }), "a ping on B");
      if ("result" in (ping.messages[0] ?? {})) break;
      expect(JSON.stringify(ping.messages[0])).toContain("already in use");
      if (Date.now() > deadline) throw new Error("B did not stop the call within 60 s of its cancellation");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const resumed = await alive(b, SseReader.resume(onB, last.id as string), "the resumed stream on B");
    expectQuestionsCancelled(await alive(b, resumed.rest(), "the resumed stream's events on B"), asked);
    await expectServing(b, onB);
    await expectServing(a, session);
  });
});
