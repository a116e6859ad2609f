/**
 * What the Redis-backed stores and bus need of a node-redis client (`createClient()` from `redis` has
 * it). Create it with `disableOfflineQueue: true`, so commands fail at once while Redis is away instead
 * of queueing, and listen for its `error` events.
 */
export interface RedisOnceClient {
  readonly isReady: boolean;
  sendCommand(args: ReadonlyArray<string>, options?: { timeout?: number }): Promise<unknown>;
}
