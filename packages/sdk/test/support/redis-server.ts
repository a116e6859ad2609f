import { type RedisProgram, RedisServer } from "@roundtrip/test-services";
import { afterAll, afterEach, beforeAll } from "vitest";

const PROGRAMS: readonly RedisProgram[] = ["redis-server", "valkey-server"];

/** The server the Redis suites run against: ROUNDTRIP_REDIS_PROGRAM (the `valkey` project sets it), else redis-server. */
function redisProgram(): RedisProgram {
  const named = process.env.ROUNDTRIP_REDIS_PROGRAM ?? "redis-server";
  const program = PROGRAMS.find((each) => each === named);
  if (program === undefined)
    throw new Error(`ROUNDTRIP_REDIS_PROGRAM is ${named}; set it to one of ${PROGRAMS.join(", ")}`);
  return program;
}

/**
 * A real redis-server (or valkey-server, see redisProgram) for the tests of one file, started before the first of them and stopped after
 * the last. Call it where the file's hooks are declared; the function it returns gives the server to
 * the tests and hooks that run after it started.
 */
export function redisServerPerFile(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await RedisServer.start({ program: redisProgram() });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error("the file's redis-server is used before its beforeAll ran");
    return server;
  };
}

/**
 * Where a test leaves what it opened (clients, buses, servers) to be closed: after each test, every
 * closer runs, the last one pushed first.
 */
export function closersAfterEach(): (() => unknown)[] {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return closers;
}
