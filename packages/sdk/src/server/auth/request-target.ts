import { decodeHeaderValue, HEADER } from "../../protocol/http-headers.js";
import type { HeaderRecord } from "../transport/request-head.js";

/** What a Streamable HTTP request addresses, as its `Mcp-Method` and `Mcp-Name` headers say. */
export interface RequestTarget {
  method: string | undefined;
  /** The tool or prompt name, or the resource URI. */
  name: string | undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Read before the body: the transport later rejects (400, -32020) any request whose body disagrees with
 * these headers, before a handler runs, so a policy decided on them cannot be dodged by lying in them.
 * Users meet the target as `scopesForRequest`'s argument, never this reader, which `bearerAuth` owns.
 * @internal
 */
export function requestTargetOf(headers: HeaderRecord): RequestTarget {
  const method = single(headers[HEADER.method]);
  const name = single(headers[HEADER.name]);
  return {
    method: method === undefined ? undefined : decodeHeaderValue(method),
    name: name === undefined ? undefined : decodeHeaderValue(name),
  };
}
