import { LocalListeners } from "./local-listeners.js";
import type { BusEvent, BusListener, NotificationBus } from "./notification-bus.js";

/** The default: one process is the whole fleet. */
export class InProcessNotificationBus implements NotificationBus {
  readonly #listeners = new LocalListeners();

  publish(event: BusEvent): Promise<void> {
    this.#listeners.deliver(event);
    return Promise.resolve();
  }

  subscribe(listener: BusListener): () => void {
    return this.#listeners.add(listener);
  }
}
