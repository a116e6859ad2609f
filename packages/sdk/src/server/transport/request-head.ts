/** Request headers by lower-cased name, as Node keeps them; a repeated header may be an array. */
export type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

/**
 * What the transport and an authenticate hook read of an HTTP request before its body. Node's
 * IncomingMessage is one as it stands, so the Node path hands its request over without a copy; the
 * fetch handler builds one from a web Request. `url` is the request target as received: a path
 * from Node, an absolute URL from fetch.
 */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: HeaderRecord;
}
