import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import type { Clock } from "../rounds/input-required-driver.js";
import type { ClientTransport, TransportRequestOptions } from "../transport/client-transport.js";

/** Wraps a transport and keeps every request it carried, exactly as sent. */
export class RecordingTransport implements ClientTransport {
  readonly inner: ClientTransport;
  readonly requests: JsonRpcRequest[] = [];
  readonly responses: JsonRpcResponse[] = [];

  constructor(inner: ClientTransport) {
    this.inner = inner;
    inner.onNotification = (message) => this.onNotification?.(message);
  }

  get kind(): string {
    return this.inner.kind;
  }

  onNotification?: (notification: JsonRpcNotification) => void;

  async request(request: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse> {
    this.requests.push(JSON.parse(JSON.stringify(request)) as JsonRpcRequest);
    const response = await this.inner.request(request, options);
    this.responses.push(response);
    return response;
  }

  /** The requests of one method, in order. */
  of(method: string): JsonRpcRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A clock that never waits: it records each requested delay and resolves at once. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
  }
}
