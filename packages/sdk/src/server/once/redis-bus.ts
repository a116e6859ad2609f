import { randomBytes } from "node:crypto";
import {
  type BusEvent,
  type BusListener,
  LocalListeners,
  type NotificationBus,
} from "../notification-bus.js";
import { sendWithDeadline } from "./command-deadline.js";
import type { RedisOnceClient } from "./redis.js";

/** The dedicated connection that listens (a subscribed node-redis connection can send nothing else). */
export interface RedisSubscriber {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: "ready", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  close(): Promise<unknown>;
}

/** A node-redis client: it publishes, and `duplicate()` opens the subscriber. */
export interface RedisBusClient extends RedisOnceClient {
  duplicate(): RedisSubscriber;
}

export interface RedisNotificationBusOptions {
  client: RedisBusClient;
  /** The pub/sub channel every instance of one fleet shares (default `roundtrip:bus`). */
  channel?: string;
  /** How long one PUBLISH may take before it counts as failed (default 2000 ms). */
  timeoutMs?: number;
  /** Hears the subscriber connection's errors (it reconnects on its own); default: ignored. */
  onError?: (error: Error) => void;
}

interface Envelope {
  from: string;
  event: BusEvent;
}

/**
 * A NotificationBus over Redis pub/sub. Publishing delivers to this instance's listeners at once and
 * PUBLISHes an envelope naming the instance; the subscriber drops envelopes from its own instance, so
 * every listener hears every event once. Pub/sub is fire and forget: an instance whose subscriber is
 * reconnecting misses what is published meanwhile (a listen stream then sees no change it could
 * not also have missed by reconnecting itself).
 */
export class RedisNotificationBus implements NotificationBus {
  readonly #client: RedisBusClient;
  readonly #subscriber: RedisSubscriber;
  readonly #channel: string;
  readonly #timeout: number;
  readonly #from = randomBytes(9).toString("base64url");
  readonly #listeners = new LocalListeners();
  readonly #subscribed: Promise<void>;
  #closed = false;

  constructor(options: RedisNotificationBusOptions) {
    const client = options?.client;
    if (typeof client?.sendCommand !== "function" || typeof client.duplicate !== "function") {
      throw new TypeError(
        "RedisNotificationBus needs { client }: a node-redis client, e.g. createClient({ url })",
      );
    }
    this.#client = client;
    this.#channel = options.channel ?? "roundtrip:bus";
    this.#timeout = options.timeoutMs ?? 2000;
    this.#subscriber = client.duplicate();
    this.#subscriber.on("error", options.onError ?? (() => {}));
    this.#subscribed = this.#subscribe();
  }

  /** Resolves once this instance hears the others. */
  ready(): Promise<void> {
    return this.#subscribed;
  }

  async publish(event: BusEvent): Promise<void> {
    this.#listeners.deliver(event);
    const envelope: Envelope = { from: this.#from, event };
    await sendWithDeadline(this.#client, ["PUBLISH", this.#channel, JSON.stringify(envelope)], this.#timeout);
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
        this.#subscriber
          .subscribe(this.#channel, (message) => this.#receive(message))
          .then(
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
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.#from || typeof envelope.event?.type !== "string") return;
    this.#listeners.deliver(envelope.event);
  }
}
