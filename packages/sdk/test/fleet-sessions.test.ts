import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { rawPost, rawSession } from "../src/server/legacy/test-support/raw-session.js";
import { until } from "../src/server/mcp-server/test-support/once.js";
import {
  confirmation,
  firstToSpeak,
  type Message,
  type QuestionInstance,
  questionInstance,
  StreamedCall,
} from "./support/question-fleet.js";
import { closersAfterEach, redisServerPerFile } from "./support/redis-server.js";

/**
 * A 2025-era session's questions in a fleet: instances on one real redis-server, each building its own
 * object for the session, and two calls of the session asking at once on different instances.
 */
const redis = redisServerPerFile();
const closers = closersAfterEach();

/** Generous: these wait for events that come in milliseconds, on a machine that may be very busy. */
const WITHIN_MS = 60_000;

async function fleetOf(size: number): Promise<QuestionInstance[]> {
  const fleet = `questions:${Math.random().toString(36).slice(2)}`;
  const instances: QuestionInstance[] = [];
  for (let index = 0; index < size; index += 1)
    instances.push(await questionInstance(redis().url, fleet, closers));
  return instances;
}

function questionOf(message: Message | undefined): { id: unknown; message: string } {
  const params = message?.params as { message?: string } | undefined;
  if (message?.method !== "elicitation/create" || typeof params?.message !== "string") {
    throw new Error(`expected a question, got ${JSON.stringify(message)}`);
  }
  return { id: message.id, message: params.message };
}

function textOf(message: Message | undefined): string | undefined {
  const result = message?.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text;
}

/** The session's two calls, staging on `first` and production on `second`, each waiting on its question. */
async function twoCalls(first: QuestionInstance, second: QuestionInstance, headers: Record<string, string>) {
  const staging = await StreamedCall.deploy(first.url, headers, 1, "staging");
  closers.push(() => staging.close());
  const stagingQuestion = questionOf(await staging.next());
  const production = await StreamedCall.deploy(second.url, headers, 2, "production");
  closers.push(() => production.close());
  const productionQuestion = questionOf(await production.next());
  expect([stagingQuestion.message, productionQuestion.message]).toEqual([
    "Deploy to staging?",
    "Deploy to production?",
  ]);
  return { staging, stagingQuestion, production, productionQuestion };
}

describe("a 2025-era session's questions across instances", () => {
  it.each([
    ["two instances: the answer is posted to the one serving the other call", 2],
    ["three instances: the answer is posted to a third one", 3],
  ])("%s, and settles only the call it answers", async (_title, size) => {
    const instances = await fleetOf(size);
    const [a, b] = instances as [QuestionInstance, QuestionInstance];
    const via = instances[size - 1] as QuestionInstance;
    const session = await rawSession(a.url, undefined, { elicitation: {} });
    const calls = await twoCalls(a, b, session.headers);

    const answered = await rawPost(via.url, confirmation(calls.stagingQuestion.id, true), session.headers);
    expect(answered.status).toBe(202);
    const [first, message] = await firstToSpeak(calls.staging, calls.production);
    expect([first, textOf(message)]).toEqual(["staging", "Deployed to staging"]);

    // Production still waits for its own answer, and takes it from any instance.
    const own = await rawPost(a.url, confirmation(calls.productionQuestion.id, false), session.headers);
    expect(own.status).toBe(202);
    expect(textOf(await calls.production.next())).toBe("Not deployed to production");
    // Each instance asked its own question, never a shared "s1".
    expect(calls.stagingQuestion.id).not.toEqual(calls.productionQuestion.id);
  });

  it("an answer to one session's question, posted on another session of the same client, settles nothing and is logged without its content", async () => {
    const [a, b] = (await fleetOf(2)) as [QuestionInstance, QuestionInstance];
    const first = await rawSession(a.url, undefined, { elicitation: {} });
    const second = await rawSession(b.url, undefined, { elicitation: {} });
    const staging = await StreamedCall.deploy(a.url, first.headers, 1, "staging");
    closers.push(() => staging.close());
    const question = questionOf(await staging.next());
    const production = await StreamedCall.deploy(b.url, second.headers, 1, "production");
    closers.push(() => production.close());
    questionOf(await production.next());

    const marker = "answer-content-marker";
    const misplaced = {
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { confirm: true, marker } },
    };
    expect((await rawPost(b.url, misplaced, second.headers)).status).toBe(202);
    const ignored = (logs: QuestionInstance["logs"]) =>
      logs.find((r) => /ignored a response/.test(r.message));
    // Either the instance that asked logs the answer it refuses, or the other call takes it.
    const outcome = await Promise.race([
      until(() => ignored(a.logs) !== undefined || ignored(b.logs) !== undefined, WITHIN_MS).then(
        () => "logged",
      ),
      firstToSpeak(staging, production),
    ]);
    expect(outcome).toBe("logged");
    const record = ignored(a.logs) ?? ignored(b.logs);
    expect(record?.level).toBe("warn");
    expect(JSON.stringify([...a.logs, ...b.logs])).not.toContain(marker);

    // The call the answer was meant for still waits, and takes it on its own session.
    expect((await rawPost(b.url, confirmation(question.id, false), first.headers)).status).toBe(202);
    expect(textOf(await staging.next())).toBe("Not deployed to staging");
  });

  it("an answer published straight to Redis, without the fleet's keys, settles nothing and is logged without its content", async () => {
    const fleet = `questions:${Math.random().toString(36).slice(2)}`;
    const a = await questionInstance(redis().url, fleet, closers);
    const session = await rawSession(a.url, undefined, { elicitation: {} });
    const staging = await StreamedCall.deploy(a.url, session.headers, 1, "staging");
    closers.push(() => staging.close());
    const question = questionOf(await staging.next());

    const forger = createClient({ url: redis().url });
    await forger.connect();
    closers.push(() => forger.destroy());
    const marker = "forged-content-marker";
    const event = {
      type: "answer",
      to: String(question.id).split(".")[0],
      session: session.id,
      id: question.id,
      answer: { result: { action: "accept", content: { confirm: true, marker } } },
    };
    await forger.publish(`${fleet}:bus`, JSON.stringify({ from: "forger", event }));
    const dropped = () => a.logs.find((r) => /dropped a message on the bus/.test(r.message));
    const outcome = await Promise.race([
      until(() => dropped() !== undefined, WITHIN_MS).then(() => "dropped"),
      staging.next(),
    ]);
    expect(outcome).toBe("dropped");
    expect(dropped()?.level).toBe("warn");
    expect(JSON.stringify(a.logs)).not.toContain(marker);

    expect((await rawPost(a.url, confirmation(question.id, false), session.headers)).status).toBe(202);
    expect(textOf(await staging.next())).toBe("Not deployed to staging");
  });
});
