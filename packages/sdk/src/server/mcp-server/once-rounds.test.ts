import { describe, expect, it } from "vitest";
import type { Logger } from "../../protocol/logger.js";
import { MemoryOnceStore } from "../fleet/memory-once-store.js";
import type { OnceStore } from "../fleet/once-store.js";
import { McpServer } from "./mcp-server.js";
import {
  CONFIRMED,
  deploy,
  errorOf,
  FROZEN_ERROR,
  firstRound,
  type OnceServer,
  resultOf,
  send,
  serversClosedAfterEach,
  textOf,
  until,
} from "./test-support/once.js";

const start = serversClosedAfterEach();

const DECLINED = { confirm: { action: "accept", content: { confirm: false } } };

/** A clock the test moves: McpServer's in seconds, the memory store's in milliseconds. */
function testClock(start = 1_800_000_000) {
  let seconds = start;
  return {
    seconds: () => seconds,
    millis: () => seconds * 1000,
    advance(by: number) {
      seconds += by;
    },
  };
}

function recordingLogger(): Logger & { lines: { level: string; fields: unknown; message: string }[] } {
  const lines: { level: string; fields: unknown; message: string }[] = [];
  const record = (level: string) => (fields: unknown, message?: string) => {
    lines.push({ level, fields, message: message ?? "" });
  };
  return {
    lines,
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
}

describe("rounds that run once, with the in-memory store, over HTTP", () => {
  it("a replayed completing round does not run the handler again: it gets the first outcome", async () => {
    const { url, counters } = await start({ store: new MemoryOnceStore() });
    const retry = await firstRound(url);
    const first = resultOf(await deploy(url, retry));
    expect(textOf(first)).toBe("deployed web (run 1)");
    for (let i = 0; i < 5; i++) {
      expect(resultOf(await deploy(url, retry))).toEqual(first);
    }
    expect(counters.deploys).toBe(1);
    // A new flow is a new deploy.
    expect(textOf(resultOf(await deploy(url, await firstRound(url))))).toBe("deployed web (run 2)");
  });

  it("after the outcome expires, a replay gets the frozen error, and the handler still ran once", async () => {
    const clock = testClock();
    const store = new MemoryOnceStore({ now: clock.millis });
    const { url, counters } = await start({ store, now: clock.seconds, outcomeTtl: 30 });
    const retry = await firstRound(url);
    resultOf(await deploy(url, retry));
    clock.advance(29);
    expect(textOf(resultOf(await deploy(url, retry)))).toBe("deployed web (run 1)");
    clock.advance(2);
    expect(errorOf(await deploy(url, retry))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(1);
  });

  it("a replay with other answers than the consumed round's is refused", async () => {
    const { url, counters } = await start({ store: new MemoryOnceStore() });
    const retry = await firstRound(url);
    resultOf(await deploy(url, retry));
    const other = { confirm: { action: "accept", content: { confirm: false } } };
    expect(errorOf(await deploy(url, { ...retry, inputResponses: other }))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(1);
  });

  it("five concurrent copies of the completing round run the handler exactly once", async () => {
    let counters: OnceServer["counters"] | undefined;
    const server = await start({
      store: new MemoryOnceStore(),
      // The first copy holds its round until all five reached the server.
      gate: () => until(() => (counters?.arrivals ?? 0) >= 6),
    });
    counters = server.counters;
    const retry = await firstRound(server.url);
    const replies = await Promise.all(Array.from({ length: 5 }, () => deploy(server.url, retry)));
    expect(server.counters.deploys).toBe(1);
    for (const reply of replies) expect(textOf(resultOf(reply))).toBe("deployed web (run 1)");
  });

  it("a copy that waits longer than `wait` for the running one is told it is in progress, never run", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await start({ store: new MemoryOnceStore(), wait: 0.05, lease: 20, gate: () => held });
    const retry = await firstRound(server.url);
    const running = deploy(server.url, retry);
    await until(() => server.counters.deploys === 1);
    const error = errorOf(await deploy(server.url, retry));
    expect(error).toMatchObject({ code: -32603, data: { reason: "round_in_progress" } });
    // The lease has up to 20 s left: the hint is within it, in whole seconds.
    const retryAfter = (error.data as { retryAfter: number }).retryAfter;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect(error.message).toMatch(
      /'deploy' is still running this round.*retry after \d+ s with the same requestState/,
    );
    release();
    expect(textOf(resultOf(await running))).toBe("deployed web (run 1)");
    expect(server.counters.deploys).toBe(1);
  });

  it("the flow-lifetime cap refuses a flow older than it, on any round", async () => {
    const clock = testClock();
    const store = new MemoryOnceStore({ now: clock.millis });
    const { url, counters } = await start({ store, now: clock.seconds, flowLifetime: 60 });
    // A flow that keeps asking: the tool asks again while the answer is no.
    const no = { confirm: { action: "accept", content: { confirm: false } } };
    let retry = await firstRound(url);
    clock.advance(40);
    const again = resultOf(await deploy(url, { ...retry, inputResponses: no }));
    expect(again.resultType).toBe("input_required");
    retry = { ...retry, requestState: again.requestState as string, inputResponses: CONFIRMED };
    clock.advance(30);
    expect(errorOf(await deploy(url, retry))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(0);
  });

  it("a state a repeat sealed afresh never runs its consumed round again, after the round's own state expired", async () => {
    const clock = testClock();
    const store = new MemoryOnceStore({ now: clock.millis });
    // The defaults: outcomes kept 300 s, flows 3600 s, each state valid 600 s after it is sealed.
    const { url, counters } = await start({ store, now: clock.seconds });
    const first = await firstRound(url);
    const asking = { ...first, inputResponses: DECLINED };
    clock.advance(10);
    const again = resultOf(await deploy(url, asking));
    const completing = { ...first, requestState: again.requestState, inputResponses: CONFIRMED };
    clock.advance(10);
    expect(textOf(resultOf(await deploy(url, completing)))).toBe("deployed web (run 1)");
    // Round one repeated inside its outcome window: round two's state comes back, sealed afresh.
    clock.advance(280);
    const resealed = resultOf(await deploy(url, asking));
    expect(resealed.resultType).toBe("input_required");
    // The fresh seal is still good, long after round two's first state expired.
    clock.advance(390);
    const replay = await deploy(url, { ...completing, requestState: resealed.requestState });
    expect(errorOf(replay)).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(1);
  });

  it("a state sealed afresh by a repeat of a repeat does not run its consumed round again either", async () => {
    const clock = testClock();
    const store = new MemoryOnceStore({ now: clock.millis });
    const { url, counters } = await start({ store, now: clock.seconds });
    const first = await firstRound(url);
    const states = [first.requestState];
    const answer = (requestState: string, inputResponses: unknown) =>
      deploy(url, { ...first, requestState, inputResponses });
    // Rounds one and two say no, so the flow asks again; round three deploys.
    for (const inputResponses of [DECLINED, DECLINED, CONFIRMED]) {
      clock.advance(10);
      const result = resultOf(await answer(states.at(-1) as string, inputResponses));
      if (typeof result.requestState === "string") states.push(result.requestState);
    }
    expect(counters.deploys).toBe(1);
    // Round one repeated: round two's state, sealed afresh; round two repeated with that state:
    // round three's, sealed afresh again.
    clock.advance(270);
    const roundTwo = resultOf(await answer(states[0] as string, DECLINED)).requestState as string;
    clock.advance(10);
    const roundThree = resultOf(await answer(roundTwo, DECLINED)).requestState as string;
    states.push(roundTwo, roundThree);
    // Every state the flow handed out, the last first, replayed with a yes until the flow is over.
    for (const later of [390, 200, 1000, 1690]) {
      clock.advance(later);
      for (const requestState of [...states].reverse()) {
        expect(errorOf(await answer(requestState, CONFIRMED))).toEqual(FROZEN_ERROR);
      }
    }
    expect(counters.deploys).toBe(1);
  });

  it("hands the store only ciphertext: no answer, handler state or result of a flow in clear", async () => {
    const memory = new MemoryOnceStore();
    const stored: string[] = [];
    const store = over(memory, {
      complete: (key, token, outcome, ttl) => {
        stored.push(outcome);
        return memory.complete(key, token, outcome, ttl);
      },
    });
    const { url, counters } = await start({ store });
    const first = await firstRound(url);
    const again = resultOf(await deploy(url, { ...first, inputResponses: DECLINED }));
    const completing = { ...first, requestState: again.requestState, inputResponses: CONFIRMED };
    const done = resultOf(await deploy(url, completing));
    expect(textOf(done)).toBe("deployed web (run 1)");
    // Round one's outcome holds round two's state, round two's the deployment.
    expect(stored).toHaveLength(2);
    for (const outcome of stored) {
      for (const clear of ["deployed web", "asked", '"once"', "confirm", "content"]) {
        expect(outcome).not.toContain(clear);
      }
    }
    // Repeats are still answered from the store.
    expect(resultOf(await deploy(url, completing))).toEqual(done);
    expect(counters.deploys).toBe(1);
  });

  it("a round's state is single-use for prompts and resource templates too", async () => {
    const { url, counters } = await start({ store: new MemoryOnceStore() });
    const prompt = await firstRound(url, "prompts/get", { name: "approve" });
    const rendered = resultOf(await send(url, "prompts/get", prompt));
    expect(resultOf(await send(url, "prompts/get", prompt))).toEqual(rendered);
    const read = await firstRound(url, "resources/read", { uri: "tickets://7" });
    const contents = resultOf(await send(url, "resources/read", read));
    expect(resultOf(await send(url, "resources/read", read))).toEqual(contents);
    expect({ prompts: counters.prompts, reads: counters.reads }).toEqual({ prompts: 1, reads: 1 });
  });

  it("answers without the round's requestState are refused rather than run unguarded", async () => {
    const { url, counters } = await start({ store: new MemoryOnceStore() });
    expect(errorOf(await deploy(url, { inputResponses: CONFIRMED }))).toEqual(FROZEN_ERROR);
    expect(counters.deploys).toBe(0);
  });

  it("fails closed when the store throws: the once-tool is refused and never runs, others work", async () => {
    const logger = recordingLogger();
    const healthy = new MemoryOnceStore();
    let down = false;
    const guard =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> =>
        down ? Promise.reject(new Error("connection refused")) : call(...args);
    const store: OnceStore = {
      claim: guard(healthy.claim.bind(healthy)),
      lease: guard(healthy.lease.bind(healthy)),
      start: guard(healthy.start.bind(healthy)),
      renew: guard(healthy.renew.bind(healthy)),
      complete: guard(healthy.complete.bind(healthy)),
      release: guard(healthy.release.bind(healthy)),
      read: guard(healthy.read.bind(healthy)),
      ready: () => Promise.resolve(!down),
    };
    const { url, counters } = await start({ store, logger });
    const retry = await firstRound(url);
    down = true;
    for (const reply of [await deploy(url, retry), await deploy(url)]) {
      const error = errorOf(reply);
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/once-store is unavailable.*'deploy'.*was not run.*check the once-store/);
    }
    expect(counters.deploys).toBe(0);
    const errors = logger.lines.filter((line) => line.level === "error");
    expect(errors.map((line) => line.fields)).toMatchObject([
      { target: "deploy", operation: "lease", err: { message: "connection refused" } },
      { target: "deploy", operation: "ready" },
    ]);
    expect(textOf(resultOf(await send(url, "tools/call", { name: "echo", arguments: { text: "hi" } })))).toBe(
      "hi",
    );
    down = false;
    expect(textOf(resultOf(await deploy(url, retry)))).toBe("deployed web (run 1)");
  });
});

/** The store's methods, bound, with some of them replaced. */
function over(store: MemoryOnceStore, replaced: Partial<OnceStore>): OnceStore {
  const methods = ["claim", "lease", "start", "renew", "complete", "release", "read", "ready"] as const;
  const bound = Object.fromEntries(methods.map((name) => [name, store[name].bind(store)]));
  return { ...bound, ...replaced } as OnceStore;
}

describe("rounds whose holder stopped, on a fake clock", () => {
  it("a lease whose answer was lost: retries hear it is in progress, then run it once when it lapses", async () => {
    const clock = testClock();
    const memory = new MemoryOnceStore({ now: clock.millis });
    let resets = 1;
    // The lease reaches the store, its answer does not: a connection reset right after the claim.
    const store = over(memory, {
      lease: async (key, request) => {
        const got = await memory.lease(key, request);
        if (resets-- > 0) throw new Error("socket closed");
        return got;
      },
    });
    const { url, counters } = await start({ store, now: clock.seconds, wait: 0.05, lease: 30 });
    const retry = await firstRound(url);
    expect(errorOf(await deploy(url, retry))).toMatchObject({ code: -32603 });
    clock.advance(10);
    expect(errorOf(await deploy(url, retry))).toMatchObject({
      code: -32603,
      data: { reason: "round_in_progress", retryAfter: 20 },
    });
    expect(counters.deploys).toBe(0);
    clock.advance(20);
    expect(textOf(resultOf(await deploy(url, retry)))).toBe("deployed web (run 1)");
    expect(resultOf(await deploy(url, retry))).toMatchObject({ content: [{ text: "deployed web (run 1)" }] });
    expect(counters.deploys).toBe(1);
  });

  it("a holder that stopped after its handler started: the round's outcome is unknown, and it never runs again", async () => {
    const clock = testClock();
    const memory = new MemoryOnceStore({ now: clock.millis });
    const logger = recordingLogger();
    let finish: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    // Instance a renews nothing: as far as the store can tell, it died once its handler started.
    const silent = over(memory, { renew: async () => true });
    const once = { now: clock.seconds, wait: 0.05, lease: 30 };
    const a = await start({ store: silent, ...once, instanceId: "a", gate: () => held });
    const b = await start({ store: memory, ...once, instanceId: "b", logger });
    const retry = await firstRound(a.url);
    const running = deploy(a.url, retry);
    await until(() => a.counters.deploys === 1);
    expect(errorOf(await deploy(b.url, retry)).data).toMatchObject({ reason: "round_in_progress" });
    clock.advance(30);
    for (let i = 0; i < 2; i++) {
      const error = errorOf(await deploy(b.url, retry));
      expect(error).toMatchObject({ code: -32603, data: { reason: "round_outcome_unknown" } });
      expect(error.message).toMatch(/whether its effect happened is unknown.*will not be run again/);
    }
    expect(a.counters.deploys + b.counters.deploys).toBe(1);
    const line = logger.lines.find((entry) => entry.level === "error");
    expect(line?.fields).toMatchObject({ target: "deploy", holder: "a", attempt: 1 });
    // A holder that was only slow records its outcome late: repeats get it from then on.
    finish();
    expect(textOf(resultOf(await running))).toBe("deployed web (run 1)");
    expect(textOf(resultOf(await deploy(b.url, retry)))).toBe("deployed web (run 1)");
    expect(a.counters.deploys + b.counters.deploys).toBe(1);
  });
});

describe("a round that outlives its lease", () => {
  it("is renewed by its running holder: a retry hears it is in progress, never that its outcome is unknown", async () => {
    let millis = 0;
    const memory = new MemoryOnceStore({ now: () => millis });
    let renewals = 0;
    let finish: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    // Each renewal comes 25 ms of store time after the last: three of them outlast the 30 ms lease.
    const store = over(memory, {
      renew: (key, token, leaseMs) => {
        millis += 25;
        renewals += 1;
        return memory.renew(key, token, leaseMs);
      },
    });
    const server = await start({ store, wait: 0.05, lease: 0.03, gate: () => held });
    const retry = await firstRound(server.url);
    const running = deploy(server.url, retry);
    await until(() => renewals >= 3);
    expect(errorOf(await deploy(server.url, retry)).data).toMatchObject({ reason: "round_in_progress" });
    finish();
    expect(textOf(resultOf(await running))).toBe("deployed web (run 1)");
    const after = renewals;
    expect(textOf(resultOf(await deploy(server.url, retry)))).toBe("deployed web (run 1)");
    // Renewal stops with the handler.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renewals).toBe(after);
    expect(server.counters.deploys).toBe(1);
  });
});

describe("MemoryOnceStore", () => {
  it("claims once, completes, expires the outcome before the round, and bounds its size", async () => {
    let now = 0;
    const store = new MemoryOnceStore({ maxEntries: 2, now: () => now });
    expect(await store.claim("a", "t1", 1000)).toBe(true);
    expect(await store.claim("a", "t2", 1000)).toBe(false);
    const plain = { status: "pending", started: true, leaseMs: 0, holder: "", attempt: 1 };
    expect(await store.read("a")).toEqual(plain);
    await expect(store.complete("a", "t2", "x", { outcomeMs: 10, consumedMs: 100 })).rejects.toThrow();
    await store.complete("a", "t1", "x", { outcomeMs: 10, consumedMs: 100 });
    expect(await store.read("a")).toEqual({ status: "done", outcome: "x" });
    now = 10;
    expect(await store.read("a")).toEqual({ status: "consumed" });
    expect(await store.claim("b", "t", 1000)).toBe(true);
    await store.release("b", "other");
    expect(await store.read("b")).toEqual(plain);
    await store.release("b", "t");
    expect(await store.read("b")).toEqual({ status: "free" });
    expect(await store.claim("b", "t", 1000)).toBe(true);
    await expect(store.claim("c", "t", 1000)).rejects.toThrow(/full/);
    expect(await store.ready()).toBe(false);
    now = 100;
    expect(await store.ready()).toBe(true);
    expect(await store.claim("c", "t", 1000)).toBe(true);
  });
});

describe("registration", () => {
  it("refuses once on a static resource and a once that is not a boolean", () => {
    const mcp = new McpServer({ name: "x" });
    expect(() => mcp.resource("r", { uri: "file:///a", once: true }, () => "a")).toThrow(/static/);
    expect(() => mcp.tool("t", { once: "yes" as unknown as boolean }, () => "a")).toThrow(TypeError);
    expect(() => new McpServer({ name: "x" }, { once: { flowLifetime: 0 } })).toThrow(RangeError);
  });
});
