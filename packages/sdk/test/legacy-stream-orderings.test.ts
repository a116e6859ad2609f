import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { elicitForm, inputRequired } from "../src/protocol/input-required.js";
import { McpServer } from "../src/server/index.js";
import { RawStream, rawPost, rawSession } from "../src/server/legacy/test-support/raw-session.js";
import { toElicitationSchema } from "../src/server/mcp-server/elicitation-schema.js";
import { acceptedContent } from "../src/server/mcp-server/input-responses.js";
import { type RunningHttpServer, startHttpServer } from "../src/test-support/http.js";
import { recordingLogger } from "../src/test-support/in-process.js";

/**
 * Every ordering of what can happen to a 2025-era call while the server's question is pending: the
 * client drops the call's SSE response, cancels the call, ends the session, the question times out,
 * the answer arrives. None may throw out of the server (an uncaught exception or unhandled rejection
 * ends a real process), and after each the server serves, the call ended as the first of those
 * events decided, and a dropped stream resumes from Last-Event-ID while its session lives.
 *
 * In one process, so many orderings run in seconds: the faults a process would die of are caught
 * here explicitly, and the question's timeout is fired by a fake clock at its place in the ordering.
 */

const EVENTS = ["drop", "cancel", "delete", "timeout", "answer"] as const;
type EventName = (typeof EVENTS)[number];
type Outcome = "answered" | "cancelled" | "deleted" | "timed out";

/**
 * Far above anything the steps take in real time; only the fake clock reaches it. Below fetch's own
 * body timeout (300 s), whose timer the fake clock moves too.
 */
const TIMEOUT_MS = 60_000;
const CALL_ID = 7;
const ASK = { jsonrpc: "2.0", id: CALL_ID, method: "tools/call", params: { name: "ask", arguments: {} } };
const Name = z.object({ name: z.string() });

/** What would have ended a real process, as text a failed run can show. */
const faults: string[] = [];
const recordFault = (error: unknown): void => {
  const code = (error as { code?: unknown } | undefined)?.code;
  faults.push(
    error instanceof Error ? `${error.name}${code ? ` [${code}]` : ""}: ${error.message}` : String(error),
  );
};

beforeAll(() => {
  process.on("uncaughtException", recordFault);
  process.on("unhandledRejection", recordFault);
  // Only the timers the SDK arms for a question: HTTP, streams and the test's own waits stay real.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});

afterAll(() => {
  vi.useRealTimers();
  process.off("uncaughtException", recordFault);
  process.off("unhandledRejection", recordFault);
});

function expectNoFault(when: string): void {
  if (faults.length > 0)
    throw new Error(`the server threw out of its handlers ${when}: ${faults.join("; ")}`);
}

/** Lets every callback already queued run, faults thrown on a later tick included. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One server, one session, one call that was asked a question; then the events, in order. */
class Scene {
  readonly http: RunningHttpServer;
  readonly session: Awaited<ReturnType<typeof rawSession>>;
  readonly stream: RawStream;
  readonly question: { id: string; eventId: string };
  readonly #callClosed: Promise<void>;
  readonly #answered: Promise<void>;
  #sessionLive = true;
  #dropped = false;
  outcome: Outcome | undefined;

  private constructor(
    http: RunningHttpServer,
    session: Scene["session"],
    stream: RawStream,
    question: Scene["question"],
    callClosed: Promise<void>,
    answered: Promise<void>,
  ) {
    this.http = http;
    this.session = session;
    this.stream = stream;
    this.question = question;
    this.#callClosed = callClosed;
    this.#answered = answered;
  }

  static async start(): Promise<Scene> {
    let answered!: () => void;
    const answeredRun = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const mcp = new McpServer(
      { name: "orderings", version: "1.0.0" },
      { logger: recordingLogger(), legacy: { bridge: { timeoutMs: TIMEOUT_MS } } },
    );
    mcp.tool("ask", {}, (_args, ctx) => {
      const answer = acceptedContent(ctx.inputResponses, "name", Name);
      if (!answer) {
        return inputRequired({
          inputRequests: { name: elicitForm("What is your name?", toElicitationSchema(Name)) },
        });
      }
      answered();
      return `Hello, ${answer.name}!`;
    });
    mcp.tool("hello", {}, () => "hello");
    const http = await startHttpServer(mcp.server);
    const session = await rawSession(http.url, undefined, { elicitation: {} });
    // The next POST is the call: the server's side of its response says when it has gone.
    const callClosed = new Promise<void>((resolve) => {
      http.http.once("request", (_req, res) => res.once("close", () => resolve()));
    });
    const stream = await RawStream.post(http.url, ASK, session.headers);
    const event = await stream.next();
    const message = event?.message as { id: string; method: string };
    expect(message.method).toBe("elicitation/create");
    return new Scene(
      http,
      session,
      stream,
      { id: message.id, eventId: event?.id as string },
      callClosed,
      answeredRun,
    );
  }

  async apply(event: EventName): Promise<void> {
    const open = this.outcome === undefined;
    switch (event) {
      case "drop":
        this.stream.close();
        this.#dropped = true;
        await this.#callClosed;
        break;
      case "cancel": {
        const reply = await rawPost(
          this.http.url,
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: CALL_ID } },
          this.session.headers,
        );
        expect(reply.status).toBe(this.#sessionLive ? 202 : 404);
        if (open && this.#sessionLive) this.outcome = "cancelled";
        break;
      }
      case "delete": {
        const reply = await fetch(this.http.url, { method: "DELETE", headers: this.session.headers });
        expect(reply.status).toBe(this.#sessionLive ? 200 : 404);
        this.#sessionLive = false;
        if (open) this.outcome = "deleted";
        break;
      }
      case "timeout":
        await vi.advanceTimersByTimeAsync(TIMEOUT_MS);
        if (open) this.outcome = "timed out";
        break;
      case "answer": {
        const reply = await rawPost(
          this.http.url,
          { jsonrpc: "2.0", id: this.question.id, result: { action: "accept", content: { name: "Ada" } } },
          this.session.headers,
        );
        expect(reply.status).toBe(this.#sessionLive ? 202 : 404);
        if (open) {
          this.outcome = "answered";
          await this.#answered;
        }
        break;
      }
    }
    await turn();
  }

  /** What the client has of the call once it ended: on its response, or resumed after a drop. */
  async callEvents(): Promise<Record<string, unknown>[] | undefined> {
    if (this.outcome === undefined) return undefined;
    if (!this.#dropped) return drain(this.stream);
    if (!this.#sessionLive) return undefined;
    resumed++;
    return drain(
      await RawStream.get(this.http.url, { ...this.session.headers, "last-event-id": this.question.eventId }),
    );
  }

  /** A new session is served, and so is this one while it lives. */
  async expectServing(): Promise<void> {
    const fresh = await rawSession(this.http.url);
    const hello = await rawPost(
      this.http.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hello", arguments: {} } },
      fresh.headers,
    );
    expect(hello.messages).toEqual([
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "hello" }] } },
    ]);
    if (!this.#sessionLive) return;
    const ping = await rawPost(
      this.http.url,
      { jsonrpc: "2.0", id: 3, method: "ping" },
      this.session.headers,
    );
    expect(ping.messages).toEqual([{ jsonrpc: "2.0", id: 3, result: {} }]);
  }

  async close(): Promise<void> {
    this.stream.close();
    await this.http.close();
    await turn();
  }
}

async function drain(stream: RawStream): Promise<Record<string, unknown>[]> {
  const messages: Record<string, unknown>[] = [];
  for (let event = await stream.next(); event; event = await stream.next()) messages.push(event.message);
  return messages;
}

/** The call's response as the first event that ended it decides; none for a call that was stopped. */
function expectedResponse(outcome: Outcome): unknown {
  if (outcome === "answered") {
    return { jsonrpc: "2.0", id: CALL_ID, result: { content: [{ type: "text", text: "Hello, Ada!" }] } };
  }
  if (outcome === "timed out") {
    return {
      jsonrpc: "2.0",
      id: CALL_ID,
      error: { code: -32603, message: expect.stringContaining("took longer") },
    };
  }
  return undefined;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

const EVERY_ORDERING = permutations(EVENTS);
/** Runs that resumed a dropped stream: the orderings must reach that path, not only pass by it. */
let resumed = 0;

describe("a 2025-era call's pending question, whatever happens to it in whatever order", () => {
  it("never throws out of the server, and leaves it serving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray([...EVENTS], { minLength: 1 }), async (events) => {
        faults.length = 0;
        const scene = await Scene.start();
        try {
          for (const event of events) {
            await scene.apply(event);
            // At once: a server that threw may also have left the call hanging.
            expectNoFault(`after ${event}`);
          }
          const messages = await scene.callEvents();
          if (messages !== undefined && scene.outcome !== undefined) {
            const responses = messages.filter((message) => message.id === CALL_ID);
            const expected = expectedResponse(scene.outcome);
            expect(responses).toEqual(expected === undefined ? [] : [expected]);
          }
          await scene.expectServing();
        } finally {
          await scene.close();
        }
        expectNoFault("after the server closed");
      }),
      // Every ordering of all five first (examples count towards numRuns), then orderings of some of
      // them; seeded, so every run is this one.
      { seed: 20250728, numRuns: EVERY_ORDERING.length + 80, examples: EVERY_ORDERING.map((o) => [o]) },
    );
    expect(resumed).toBeGreaterThan(0);
  }, 300_000);
});
