/**
 * `@roundtrip/sdk/redis`: what a fleet shares, kept in Redis: the once store, the notification bus, the
 * 2025-era session registry and the task store. It needs the optional peer dependency `redis` (node-redis 6); nothing
 * else in the SDK loads it.
 *
 * This module only names what the others export: they import each other directly, never through here,
 * so none of them imports a module that imports it.
 */
export type { BusEvent, BusListener, NotificationBus } from "../notification-bus.js";
export {
  type OnceLeaseRequest,
  type OnceLeaseResult,
  type OnceRecord,
  type OnceStore,
  OnceStoreUnconfirmedError,
  type OnceTtl,
} from "../once-store.js";
export type { SessionLimits, SessionRecord, SessionRegistry } from "../session-registry.js";
export type { TaskRecord, TaskStore } from "../task-store.js";
export { RedisDeadlineError, sendWithDeadline } from "./command-deadline.js";
export type {
  RedisClusterClient,
  RedisCommandOptions,
  RedisOnceClient,
  RedisSentinelClient,
  RedisStandaloneClient,
} from "./redis-client.js";
export { checkRedisDurability, type RedisDurabilityOptions, type StoreFinding } from "./redis-durability.js";
export {
  type RedisBusClient,
  RedisNotificationBus,
  type RedisNotificationBusOptions,
  type RedisSubscriber,
} from "./redis-notification-bus.js";
export { RedisOnceStore, type RedisOnceStoreOptions } from "./redis-once-store.js";
export { RedisSessionRegistry, type RedisSessionRegistryOptions } from "./redis-session-registry.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "./redis-task-store.js";
export {
  ForgetfulStoreError,
  type RequireDurableRedisOptions,
  requireDurableRedis,
} from "./require-durable-redis.js";
