import type { IncomingMessage } from "node:http";
import type { PeerAddress, TransportInfo } from "../context.js";
import type { HeaderRecord, RequestHead } from "./request-head.js";

/** A framework's request that knows its client's address: Fastify's, whose `ip` honours trustProxy. */
export interface AddressedRequest {
  readonly ip: string;
}

/**
 * The framework request a Node request is wrapped in: the transport then reports the address the
 * framework believes instead of the socket's (a trusted proxy's), and the socket's port only when
 * the two agree. A property under a symbol of our own, not a WeakMap: an entry per request in a
 * WeakMap is an ephemeron the collector has to trace on every scavenge, and that showed in the
 * cost of each request served through Fastify.
 */
const FRAMED: unique symbol = Symbol("roundtrip.framework-request");

interface FramedRequest {
  [FRAMED]?: AddressedRequest;
}

export function rememberPeer(req: IncomingMessage, framework: AddressedRequest): void {
  (req as IncomingMessage & FramedRequest)[FRAMED] = framework;
}

/**
 * What dispatch learns of an HTTP request's transport. A class, so the peer is read from the socket
 * only when something (telemetry) asks for it, and a request served with nothing recording pays nothing.
 */
class HttpTransportInfo implements TransportInfo {
  readonly kind = "http";
  readonly headers: HeaderRecord;
  readonly #req: RequestHead;

  constructor(req: RequestHead) {
    this.headers = req.headers;
    this.#req = req;
  }

  get peer(): PeerAddress | undefined {
    const socket = (this.#req as Partial<IncomingMessage>).socket;
    const address = (this.#req as FramedRequest)[FRAMED]?.ip ?? socket?.remoteAddress;
    if (address === undefined) return undefined;
    const port = address === socket?.remoteAddress ? socket.remotePort : undefined;
    return port === undefined ? { address } : { address, port };
  }

  get httpVersion(): string | undefined {
    const version = (this.#req as Partial<IncomingMessage>).httpVersion;
    // Node says "2.0" for HTTP/2; the conventions want "2".
    return version === "2.0" ? "2" : version;
  }
}

export function httpTransportInfo(req: RequestHead): TransportInfo {
  return new HttpTransportInfo(req);
}
