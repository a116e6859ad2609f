/**
 * The node-redis clients the Redis-backed stores and bus accept, one per topology: `createClient()`
 * (one Redis), `createCluster()` (Redis Cluster) and `createSentinel()` (a primary found through
 * Sentinel). Create it with `disableOfflineQueue: true` where the topology has it, so commands fail at
 * once while Redis is away instead of queueing, and listen for its `error` events.
 */
export type RedisOnceClient = RedisStandaloneClient | RedisClusterClient | RedisSentinelClient;

/** What the stores pass with a command. */
export interface RedisCommandOptions {
  /** Drops the command while it still waits in the client's queue. */
  abortSignal?: AbortSignal;
  /** node-redis's own bound, 0 for none (its default is 5 s); the stores bound commands themselves. */
  timeout?: number;
}

/** `createClient()`: every command goes to the one Redis. */
export interface RedisStandaloneClient {
  readonly isReady: boolean;
  sendCommand(args: ReadonlyArray<string>, options?: RedisCommandOptions): Promise<unknown>;
}

/** `createCluster()`: a command goes to the master of its first key's slot. */
export interface RedisClusterClient {
  readonly isReady: boolean;
  /** What tells a cluster from the other clients: its list of masters. */
  readonly masters: ReadonlyArray<unknown>;
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: RedisCommandOptions,
  ): Promise<unknown>;
}

/** `createSentinel()`: a command goes to the primary Sentinel names (or a replica, for reads if asked). */
export interface RedisSentinelClient {
  readonly isReady: boolean;
  /** What tells a Sentinel client from the other clients: where it finds the primary. */
  getMasterNode(): unknown;
  sendCommand(
    isReadonly: boolean | undefined,
    args: string[],
    options?: RedisCommandOptions,
  ): Promise<unknown>;
}

export function isClusterClient(client: RedisOnceClient): client is RedisClusterClient {
  return Array.isArray((client as Partial<RedisClusterClient>).masters);
}

export function isSentinelClient(client: RedisOnceClient): client is RedisSentinelClient {
  return typeof (client as Partial<RedisSentinelClient>).getMasterNode === "function";
}

/**
 * Sends `args` to the Redis that holds `firstKey`, whatever the topology. Every command goes to a
 * primary (never `isReadonly`): a replica that lags would answer that a claimed round is free.
 */
export function sendToPrimary(
  client: RedisOnceClient,
  firstKey: string | undefined,
  args: ReadonlyArray<string>,
  options: RedisCommandOptions,
): Promise<unknown> {
  if (isClusterClient(client)) return client.sendCommand(firstKey, false, [...args], options);
  if (isSentinelClient(client)) return client.sendCommand(false, [...args], options);
  return client.sendCommand(args, options);
}

/**
 * The key a command is routed by on Redis Cluster, for the commands the stores and the bus send: an
 * `EVAL`'s first key (none when it names no keys), a `PING`'s none, else its first argument (a key,
 * or the channel of a `PUBLISH`/`SPUBLISH`). Every key one command names shares a hash tag, so the
 * first key's slot is the slot of them all.
 */
export function firstKeyOf(args: ReadonlyArray<string>): string | undefined {
  const [command = "", first, second, third] = args;
  switch (command.toUpperCase()) {
    case "EVAL":
    case "EVALSHA":
      return Number(second) > 0 ? third : undefined;
    case "PING":
    case "WAIT":
      return undefined;
    default:
      return first;
  }
}
