import { randomBytes } from "node:crypto";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { ClientCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel, RequestId } from "../../protocol/schemas/common.js";
import type { LegacySessionFacts } from "../unenveloped-era.js";
import { OutboundRequests } from "./outbound-requests.js";

/** Where a session's messages go: its own SSE stream on HTTP, stdout on stdio. */
export type MessageSender = (message: JsonRpcMessage) => void | Promise<void>;

export interface LegacySessionInit {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  principal: string;
  now: number;
  /** Set when this instance serves a session another instance opened. */
  id?: string;
  /** The instance holding this object of the session, as the ids of its questions name it. */
  instance?: string;
}

/** 192 random bits, base64url: visible ASCII only, as session ids must be, and unguessable. */
export function newSessionId(): string {
  // A bearer capability minted once per session: drawn on its own, never kept in memory unissued.
  return randomBytes(24).toString("base64url");
}

/**
 * One 2025-era session: what `initialize` settled, the requests it is serving (so a
 * `notifications/cancelled` can stop one), the requests the server has sent its client, and the
 * resources it subscribed to. Everything here lives in this process; a fleet shares the facts through
 * a SessionRegistry.
 */
export class LegacySession implements LegacySessionFacts {
  readonly id: string;
  readonly principal: string;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
  initialized = false;
  readonly subscriptions = new Set<string>();
  readonly outbound: OutboundRequests;
  readonly #inFlight = new Map<RequestId, AbortController>();
  readonly #onClose: (() => void)[] = [];
  #standalone: MessageSender | undefined;
  #openStreams = 0;
  #requestStreams = 0;
  #lastSeen: number;
  #closed = false;

  constructor(init: LegacySessionInit) {
    this.id = init.id ?? newSessionId();
    this.outbound = new OutboundRequests(init.instance);
    this.protocolVersion = init.protocolVersion;
    this.clientCapabilities = init.clientCapabilities;
    this.clientInfo = init.clientInfo;
    this.principal = init.principal;
    this.#lastSeen = init.now;
  }

  get closed(): boolean {
    return this.#closed;
  }

  touch(now: number): void {
    this.#lastSeen = now;
  }

  /** Something of it lives here: a request in flight, a wait for the client, an open stream. */
  get busy(): boolean {
    return this.#inFlight.size > 0 || this.outbound.size > 0 || this.#openStreams > 0;
  }

  /** Idle: nothing in flight, no stream open and no message for `idleMs`. */
  isIdle(now: number, idleMs: number): boolean {
    return !this.busy && now - this.#lastSeen >= idleMs;
  }

  /** Registers a request being served; undefined when its id is already in flight on this session. */
  begin(id: RequestId): AbortController | undefined {
    if (this.#inFlight.has(id)) return undefined;
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    return controller;
  }

  end(id: RequestId, controller: AbortController): void {
    if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
  }

  /** What `notifications/cancelled` does: the request stops and sends no response. */
  cancel(id: RequestId): void {
    this.#inFlight.get(id)?.abort();
  }

  /** Sets where messages not tied to a request go. */
  setStandalone(sender: MessageSender | undefined): void {
    this.#standalone = sender;
  }

  /** Sends a message not tied to any request (a list change, a resource update). */
  sendStandalone(message: JsonRpcMessage): void {
    const send = this.#standalone;
    if (this.#closed || !send) return;
    // Best effort, from wherever the server announces something: a failing sender reports its own
    // fault, and nothing it throws may reach the announcer.
    new Promise<void>((resolve) => resolve(send(message))).catch(() => undefined);
  }

  /** Counts an open stream as activity until the returned function is called. */
  holdOpen(): () => void {
    this.#openStreams++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#openStreams--;
    };
  }

  /**
   * Counts a request whose response is held open until it is answered (on HTTP, a POST and its SSE
   * stream), until the returned function is called; undefined when `limit` are open already.
   */
  openRequestStream(limit: number): (() => void) | undefined {
    if (this.#requestStreams >= limit) return undefined;
    this.#requestStreams++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#requestStreams--;
    };
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.push(listener);
  }

  /** Ends the session: in-flight requests stop, waits for client answers end, streams close. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.outbound.cancelAll();
    this.#standalone = undefined;
    for (const listener of this.#onClose.splice(0)) listener();
  }
}
