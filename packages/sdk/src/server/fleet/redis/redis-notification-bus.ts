import { randomBytes } from "node:crypto";
import type { RequestStateCodec } from "@roundtrip/sealing";
import { type Logger, stderrLogger } from "../../../protocol/logger.js";
import { LocalListeners } from "../local-listeners.js";
import type { BusEvent, BusListener, NotificationBus } from "../notification-bus.js";
import { type BusRefusal, BusSeal } from "./bus-seal.js";
import { sendWithDeadline } from "./command-deadline.js";
import { isClusterClient, type RedisOnceClient } from "./redis-client.js";

/** The dedicated connection that listens (a subscribed node-redis connection can send nothing else). */
export interface RedisSubscriber {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  /** Sharded pub/sub (`SSUBSCRIBE`), which the bus uses on Redis Cluster. */
  sSubscribe?(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: "ready", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  close(): Promise<unknown>;
}

/** A node-redis client of any topology: it publishes, and `duplicate()` opens the subscriber. */
export type RedisBusClient = RedisOnceClient & { duplicate(): RedisSubscriber };

export interface RedisNotificationBusOptions {
  client: RedisBusClient;
  /**
   * The request-state keys every instance shares (`security.codec` of the RequestStateSecurity the
   * servers are given): every message is sealed under them, and one they do not open is dropped.
   */
  codec: RequestStateCodec;
  /** The pub/sub channel every instance of one fleet shares (default `roundtrip:bus`). */
  channel?: string;
  /** How long one PUBLISH may take before it counts as failed (default 2000 ms). */
  timeoutMs?: number;
  /** Hears the subscriber connection's errors (it reconnects on its own); default: ignored. */
  onError?: (error: Error) => void;
  /** Where dropped messages are reported (never their content); default: stderr. */
  logger?: Logger;
}

const DROPPED: Record<BusRefusal, string> = {
  keys: "dropped a message on the bus that this fleet's request-state keys do not open as a bus message: something without the keys (or another sealed value) was written to the channel, or this instance was given other keys than the rest of the fleet (give every instance the same keys)",
  purpose:
    "dropped a message on the bus that opens with this fleet's keys but is not a well-formed bus message: an instance of another Roundtrip version, or a fault; check that the fleet runs one version",
  stale:
    "dropped a message on the bus sealed more than a minute before or after this instance's clock: a replay, or clocks out of step (keep the instances' clocks synchronised)",
  replay: "dropped a message on the bus that was heard before: a replay",
};

/**
 * A NotificationBus over Redis pub/sub. Publishing delivers to this instance's listeners at once and
 * PUBLISHes the event sealed under the fleet's keys with the instance's name; the subscriber drops
 * its own instance's messages, so every listener hears every event once, and drops (and logs) any
 * message the keys do not open or that was heard before: whoever can write to the channel without
 * the keys can neither read an answer nor inject or replay one. Pub/sub is fire and forget: an
 * instance whose subscriber is reconnecting misses what is published meanwhile (a listen stream then
 * sees no change it could not also have missed by reconnecting itself). On Redis Cluster the channel
 * is sharded (`SPUBLISH`/`SSUBSCRIBE`): a message travels only within the channel's shard, instead of
 * to every node of the cluster.
 */
export class RedisNotificationBus implements NotificationBus {
  readonly #client: RedisBusClient;
  readonly #subscriber: RedisSubscriber;
  readonly #channel: string;
  readonly #timeout: number;
  readonly #sharded: boolean;
  readonly #from = randomBytes(9).toString("base64url");
  readonly #seal: BusSeal;
  readonly #logger: Logger;
  readonly #listeners = new LocalListeners();
  readonly #subscribed: Promise<void>;
  #closed = false;

  constructor(options: RedisNotificationBusOptions) {
    const client = options?.client;
    const codec = options?.codec;
    if (
      typeof client?.sendCommand !== "function" ||
      typeof client.duplicate !== "function" ||
      typeof codec?.seal !== "function" ||
      typeof codec.unseal !== "function"
    ) {
      throw new TypeError(
        "RedisNotificationBus needs { client, codec }: a node-redis client, e.g. createClient({ url }), and the request-state keys every instance shares, e.g. security.codec of its RequestStateSecurity",
      );
    }
    this.#client = client;
    this.#seal = new BusSeal({ codec, from: this.#from });
    this.#logger = options.logger ?? stderrLogger;
    this.#channel = options.channel ?? "roundtrip:bus";
    this.#timeout = options.timeoutMs ?? 2000;
    this.#sharded = isClusterClient(client);
    this.#subscriber = client.duplicate();
    if (this.#sharded && typeof this.#subscriber.sSubscribe !== "function") {
      throw new TypeError(
        "RedisNotificationBus on Redis Cluster uses sharded pub/sub: give it a node-redis createCluster() client, whose duplicate() can sSubscribe",
      );
    }
    this.#subscriber.on("error", options.onError ?? (() => {}));
    this.#subscribed = this.#subscribe();
  }

  /** Resolves once this instance hears the others. */
  ready(): Promise<void> {
    return this.#subscribed;
  }

  async publish(event: BusEvent): Promise<void> {
    this.#listeners.deliver(event);
    const publish = this.#sharded ? "SPUBLISH" : "PUBLISH";
    await sendWithDeadline(this.#client, [publish, this.#channel, this.#seal.seal(event)], this.#timeout);
  }

  subscribe(listener: BusListener): () => void {
    return this.#listeners.add(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#subscriber.close().catch(() => undefined);
  }

  /**
   * Subscribes once the connection is up. node-redis subscribes again by itself after a reconnect, so
   * this runs until the first subscription succeeds and never adds a second listener.
   */
  #subscribe(): Promise<void> {
    return new Promise<void>((resolve) => {
      // Both the connect promise and the ready event call this; one subscription may be under way.
      let state: "waiting" | "trying" | "done" = "waiting";
      const attempt = (): void => {
        if (state !== "waiting" || this.#closed || !this.#subscriber.isReady) return;
        state = "trying";
        const listener = (message: string) => this.#receive(message);
        const subscriber = this.#subscriber;
        const subscribed =
          this.#sharded && subscriber.sSubscribe
            ? subscriber.sSubscribe(this.#channel, listener)
            : subscriber.subscribe(this.#channel, listener);
        subscribed.then(
          () => {
            state = "done";
            resolve();
          },
          () => {
            state = "waiting";
          },
        );
      };
      this.#subscriber.on("ready", attempt);
      this.#subscriber.connect().then(attempt, () => undefined);
    });
  }

  #receive(message: string): void {
    const opened = this.#seal.open(message);
    if ("refused" in opened) {
      const { refused, codec } = opened;
      this.#logger.warn(
        { channel: this.#channel, reason: refused, ...(codec ? { codec } : {}) },
        DROPPED[refused],
      );
      return;
    }
    if (opened.from !== this.#from) this.#listeners.deliver(opened.event);
  }
}
