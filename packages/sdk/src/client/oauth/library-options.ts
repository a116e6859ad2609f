import * as oauth from "oauth4webapi";

/** How a request to the authorization server travels: the caller's fetch, and its cancellation. */
export interface OAuthRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * oauth4webapi's options for a request to `endpoint`. The library refuses http:// outright; Roundtrip's
 * own rule (loopback, or allowInsecureHttp) has already admitted `endpoint` through `endpointUrl`, so
 * the library's refusal is lifted for exactly the endpoints that rule let through.
 */
export function libraryOptions(endpoint: URL, options: OAuthRequestOptions = {}) {
  return {
    [oauth.customFetch]:
      options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init)),
    ...(endpoint.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
