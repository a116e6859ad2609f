import { Client, type ClientOptions, silentLogger } from "@roundtrip/sdk";
import type { LeakWatch } from "./leak-watch.js";

/**
 * The SDK client with a bearer token. Every requestState the server hands out passes through the
 * recording fetch into `watch`, so the log checks know what must never appear.
 */
export function mcpClient(url: string, token: string, watch: LeakWatch, options: ClientOptions = {}): Client {
  watch.remember("access token", token);
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    void response
      .clone()
      .text()
      .then((text) => {
        for (const match of text.matchAll(/"requestState":"([^"]+)"/g))
          watch.remember("requestState", match[1]);
      });
    return response;
  };
  return new Client(url, {
    logger: silentLogger,
    ...options,
    http: { fetch: recordingFetch, headers: { authorization: `Bearer ${token}` } },
  });
}
