/**
 * The one bound on time for every command the Redis-backed stores send. node-redis's own per-command
 * `timeout` covers a command only while it waits in the client's queue: its timer is dropped once the
 * command is written to the socket, so a Redis that is frozen (a stopped process, a host that froze,
 * `DEBUG SLEEP`, a long script) or that holds writes (`CLIENT PAUSE WRITE`) would keep the caller
 * waiting for as long as it stalls. The timer here runs until Redis answers.
 *
 * A command given up at its deadline may still have been written, and Redis then runs it when it
 * wakes, after the caller reported the failure. Each caller fails closed, so such a late effect can
 * only refuse more, never let through what was refused: a once-round claim that lands late holds the
 * round for no attempt (it is refused until its state expires, and its handler never runs), a DPoP
 * proof id claimed late is refused if it is sent again, a 2025-era session created late holds a slot
 * of its principal until it idles out, a message published late reaches the other instances late.
 */
import { firstKeyOf, type RedisOnceClient, sendToPrimary } from "./redis-client.js";

/** A command Redis did not answer in time: its effect is unknown (it may still run when Redis wakes). */
export class RedisDeadlineError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(
      `Redis did not answer within ${timeoutMs} ms: it is stalled (frozen, paused or busy with a slow command) or overloaded; check the Redis server and its latency`,
    );
    this.name = "RedisDeadlineError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Sends one command; rejects at once while the client is not connected, and with RedisDeadlineError
 * when Redis has not answered within `timeoutMs`. At the deadline the command is also dropped from
 * node-redis's queue if it never left it (behind writes a stalled Redis is not reading), so that it
 * never reaches Redis. That is done with a signal this timer aborts, and node-redis's own `timeout`
 * (5 s unless told otherwise) is turned off: it costs an `AbortSignal.timeout` per command, whose timer
 * and weak reference outlive the command by the whole timeout and whose firing builds an exception,
 * thousands a second under load (a once flow's server CPU fell from 320 to 276 µs without it).
 * On Redis Cluster the command goes to the master of its first key's slot (see `firstKeyOf`), or of
 * `routeKey`'s for a command that names no key but must reach a given node (`WAIT` after a write).
 */
export function sendWithDeadline(
  client: RedisOnceClient,
  args: ReadonlyArray<string>,
  timeoutMs: number,
  routeKey: string | undefined = firstKeyOf(args),
): Promise<unknown> {
  if (!client.isReady) {
    return Promise.reject(new Error("the Redis client is not connected (closed or reconnecting)"));
  }
  const queued = new AbortController();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new RedisDeadlineError(timeoutMs));
      queued.abort();
    }, timeoutMs);
    // Settling twice is a no-op: an answer after the deadline (or the queue's AbortError) changes
    // nothing the caller saw.
    sendToPrimary(client, routeKey, args, { timeout: 0, abortSignal: queued.signal })
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}
