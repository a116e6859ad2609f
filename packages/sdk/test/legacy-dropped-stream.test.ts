import { RedisServer } from "@roundtrip/test-services";
import { afterEach, describe, expect, it } from "vitest";
import { RawStream, rawPost, rawSession } from "../src/server/legacy/test-support/raw-session.js";
import { AskingChild } from "./support/asking-child.js";

/**
 * A 2025-era client that drops the SSE response of a call while the server's question is pending,
 * then cancels the call, ends the session or lets the question time out, against a real server
 * process: the process must live through each, answer the next request, and keep the dropped
 * stream's events for a GET with Last-Event-ID where the session still exists.
 */

const children: AskingChild[] = [];
let redis: RedisServer | undefined;

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
  await redis?.stop();
  redis = undefined;
});

async function startChild(env: Record<string, string> = {}): Promise<AskingChild> {
  const child = await AskingChild.start(env);
  children.push(child);
  return child;
}

type Session = Awaited<ReturnType<typeof rawSession>>;
type Event = NonNullable<Awaited<ReturnType<RawStream["next"]>>>;

const CALL_ID = 7;
const ASK = { jsonrpc: "2.0", id: CALL_ID, method: "tools/call", params: { name: "ask", arguments: {} } };

function openSession(child: AskingChild): Promise<Session> {
  return child.alive(rawSession(child.url, undefined, { elicitation: {} }), "a new session");
}

/**
 * Calls `ask` on `child` over an SSE response, reads the question, drops the response and waits until
 * the server saw it close. Resolves to the question's event and whether the response was still open
 * (false when the server had already ended it, as a question timeout does).
 */
async function dropWhileAsked(
  child: AskingChild,
  session: Session,
): Promise<{ question: Event; open: boolean }> {
  const stream = await child.alive(RawStream.post(child.url, ASK, session.headers), "the call's SSE stream");
  const question = await child.alive(stream.next(), "the question");
  expect(question?.message).toMatchObject({ method: "elicitation/create", id: expect.any(String) });
  expect(question?.id).toBeTypeOf("string");
  const from = child.mark();
  stream.close();
  const closed = await child.waitFor(
    (line) => line.msg === "response closed" && line.method === "POST",
    "the call's response closing",
    from,
  );
  return { question: question as Event, open: closed.finished === false };
}

/** Waits until `child` recorded, for resumption, an event whose message `matches`. */
function recorded(
  child: AskingChild,
  from: number,
  matches: { method?: string; id?: unknown },
  what: string,
): Promise<unknown> {
  return child.waitFor(
    (line) =>
      line.msg === "event recorded" &&
      (matches.method === undefined || line.method === matches.method) &&
      (matches.id === undefined || line.id === matches.id),
    what,
    from,
  );
}

/** The events a GET with Last-Event-ID replays and carries, until the server ends the stream. */
async function resume(child: AskingChild, session: Session, lastEventId: string): Promise<unknown[]> {
  const resumed = await child.alive(
    RawStream.get(child.url, { ...session.headers, "last-event-id": lastEventId }),
    "the resumed stream",
  );
  const messages: unknown[] = [];
  for (;;) {
    const event = await child.alive(resumed.next(), "the resumed stream's next event");
    if (!event) return messages;
    messages.push(event.message);
  }
}

async function expectServing(child: AskingChild, session: Session): Promise<void> {
  const reply = await child.alive(
    rawPost(
      child.url,
      { jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "hello", arguments: {} } },
      session.headers,
    ),
    "the answer to a new call",
  );
  expect(reply.messages).toEqual([
    { jsonrpc: "2.0", id: 99, result: { content: [{ type: "text", text: "hello" }] } },
  ]);
  expect(child.running).toBe(true);
}

const cancelled = (requestId: unknown, reason: string) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason },
});

/**
 * Cancels the dropped call with a POST to `via`, waits until `holder`, the instance the call runs on,
 * recorded the question's cancellation, and expects a resume on `holder` to carry it.
 */
async function cancelDropped(
  via: AskingChild,
  holder: AskingChild,
  session: Session,
  question: Event,
  what: string,
): Promise<void> {
  const from = holder.mark();
  const cancel = await via.alive(
    rawPost(via.url, cancelled(CALL_ID, "changed my mind"), session.headers),
    "the answer to the cancellation",
  );
  expect(cancel.status).toBe(202);
  await recorded(holder, from, { method: "notifications/cancelled" }, what);
  expect(await resume(holder, session, question.id as string)).toEqual([
    cancelled(question.message.id, "The request was cancelled"),
  ]);
}

describe("a 2025-era client that drops a call's SSE response while it is asked something", {
  timeout: 300_000,
}, () => {
  it("then cancels the call: the process lives, and the stream resumes with the question's cancellation", async () => {
    const child = await startChild();
    const session = await openSession(child);
    const { question } = await dropWhileAsked(child, session);
    await cancelDropped(child, child, session, question, "the question's cancellation");
    await expectServing(child, session);
  });

  it("then ends the session with DELETE: the process lives and serves a new session", async () => {
    const child = await startChild();
    const session = await openSession(child);
    const { question } = await dropWhileAsked(child, session);
    const ended = await child.alive(
      fetch(child.url, { method: "DELETE", headers: session.headers }),
      "the answer to DELETE",
    );
    expect(ended.status).toBe(200);
    // The session's streams ended with it: nothing is left to resume.
    const gone = await child.alive(
      fetch(child.url, {
        headers: { accept: "text/event-stream", ...session.headers, "last-event-id": question.id as string },
      }),
      "the answer to a resume of an ended session",
    );
    expect(gone.status).toBe(404);
    await expectServing(child, await openSession(child));
  });

  it("then the question times out: the process lives, and the stream resumes with the timeout's error", async () => {
    // The bound must outlast dropping the response; should the machine be slower than that, the
    // scenario did not happen (the server ended the response first) and runs again with a longer one.
    for (const timeoutMs of [2_000, 10_000, 60_000]) {
      const child = await startChild({ ASKING_TIMEOUT_MS: String(timeoutMs) });
      const session = await openSession(child);
      const { question, open } = await dropWhileAsked(child, session);
      if (!open) {
        await child.stop();
        continue;
      }
      await recorded(child, 0, { id: CALL_ID }, "the call's timeout error");
      expect(await resume(child, session, question.id as string)).toEqual([
        cancelled(question.message.id, "The request took longer than the server allows"),
        {
          jsonrpc: "2.0",
          id: CALL_ID,
          error: {
            code: -32603,
            message: `tools/call took longer than ${timeoutMs / 1000} s of input rounds and was stopped; try again`,
          },
        },
      ]);
      await expectServing(child, session);
      return;
    }
    throw new Error("the question timed out before the client could drop its response, at every bound");
  });

  it("held on one instance of a fleet and cancelled on another: both processes live, and the stream resumes", async () => {
    redis = await RedisServer.start();
    const fleet = { ASKING_REDIS_URL: redis.url, ASKING_FLEET: `fleet-${process.pid}-${Date.now()}` };
    const a = await startChild(fleet);
    const b = await startChild(fleet);
    const session = await openSession(a);
    const { question } = await dropWhileAsked(b, session);
    // The cancellation reaches the instance holding the call over the bus, in its own time.
    await cancelDropped(a, b, session, question, "the question's cancellation, on B");
    await expectServing(b, session);
    await expectServing(a, session);
  });
});
