/**
 * The part of Node's ServerResponse the transport writes through. A ServerResponse is one as it
 * stands, so the Node path pays nothing for the abstraction; the fetch handler implements it over a
 * web Response. Semantics are Node's: headers go out with the first write, `end()` or
 * `flushHeaders()`, and "close" fires once the response is finished or the client has gone.
 */
export interface ResponseWriter {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: Record<string, string | number>): unknown;
  setHeader(name: string, value: string): unknown;
  flushHeaders(): void;
  write(chunk: string): unknown;
  end(chunk?: string): unknown;
  once(event: "close", listener: () => void): unknown;
}
