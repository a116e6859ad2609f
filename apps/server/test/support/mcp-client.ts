import { Client, type ClientOptions } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import type { Retry } from "@roundtrip/test-support/rounds";
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

/**
 * One round of the tool `name` by a client of `token` that cancels whatever it is asked in-band: the
 * result as the server gave it, input-required included, for tests that carry the rounds themselves.
 */
export function oneRound(
  url: string,
  token: string,
  watch: LeakWatch,
  name: string,
  args: Record<string, unknown>,
  retry: Retry = {},
) {
  const client = mcpClient(url, token, watch, { onElicit: () => ({ action: "cancel" }) });
  return client.manualRounds.callTool(name, args, { allowInputRequired: true, ...retry });
}
