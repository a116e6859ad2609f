import type { JsonRpcErrorObject } from "../../protocol/errors.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { RequestId } from "../../protocol/schemas/common.js";
import { JSONRPC_VERSION } from "../../protocol/versions.js";
import { newAskingInstance, newQuestionId } from "./legacy-question.js";

/** A client's answer to one server-to-client request: its result, or the error it returned. */
export type ClientAnswer = { result: unknown } | { error: JsonRpcErrorObject };

interface Pending {
  resolve(answer: ClientAnswer): void;
  reject(reason: unknown): void;
}

/** Thrown to a waiting request when it was cancelled or its session ended. */
export class OutboundCancelled extends Error {
  override readonly name = "OutboundCancelled";
}

/**
 * The requests one session's object on this instance has sent its client and not yet had answered.
 * Each id names `instance` and is otherwise random: no other instance, and no other session, ever
 * asks under it, so a response settles the one wait that carries its id, or nothing.
 */
export class OutboundRequests {
  /** The instance asking, as the ids name it (`askingInstanceOf`). */
  readonly instance: string;
  readonly #pending = new Map<RequestId, Pending>();

  constructor(instance: string = newAskingInstance()) {
    this.instance = instance;
  }

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Sends a request through `send` and waits for the client's answer. When `signal` aborts, the wait
   * ends with OutboundCancelled and `onCancel` is told the id, so the client can be told too.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    send: (request: JsonRpcRequest) => void | Promise<void>,
    signal: AbortSignal,
    onCancel: (id: RequestId) => void,
  ): Promise<ClientAnswer> {
    const id = newQuestionId(this.instance);
    return new Promise<ClientAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(new OutboundCancelled("the request was cancelled"));
      const abort = (): void => {
        if (!this.#pending.delete(id)) return;
        onCancel(id);
        reject(new OutboundCancelled("the request was cancelled"));
      };
      signal.addEventListener("abort", abort, { once: true });
      const done = (): void => signal.removeEventListener("abort", abort);
      this.#pending.set(id, {
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: (reason) => {
          done();
          reject(reason);
        },
      });
      const request: JsonRpcRequest =
        params === undefined
          ? { jsonrpc: JSONRPC_VERSION, id, method }
          : { jsonrpc: JSONRPC_VERSION, id, method, params };
      Promise.resolve(send(request)).catch((error: unknown) => {
        this.#pending.delete(id);
        done();
        reject(error);
      });
    });
  }

  /** Hands a client's response to the request it answers; false when it answers none of ours. */
  settle(id: RequestId, answer: ClientAnswer): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    pending.resolve(answer);
    return true;
  }

  /** Ends every wait: the session is gone, so no answer can arrive. */
  cancelAll(): void {
    for (const [id, pending] of [...this.#pending]) {
      this.#pending.delete(id);
      pending.reject(new OutboundCancelled("the session ended"));
    }
  }
}
