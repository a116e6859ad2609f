import { refusedPort } from "@roundtrip/test-services";
import { describe, expect, it } from "vitest";
import { Client } from "../client.js";
import { nameConnectionFailures } from "./connection-failure.js";
import { isConnectionReset } from "./connection-reset.js";
import { ConnectionFailedError } from "./http-errors.js";

/** A loopback URL where every connection is refused. */
async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}/mcp`;
}

describe("a request that reaches no server", () => {
  it("fails as ConnectionFailedError naming the URL and the reason, with fetch's error as its cause", async () => {
    const url = await deadUrl();
    const error = await nameConnectionFailures(fetch)(url, { method: "POST" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionFailedError);
    const failure = error as ConnectionFailedError;
    expect(failure.code).toBe("ERR_CONNECTION_FAILED");
    expect(failure.reason).toBe("ECONNREFUSED");
    expect(failure.message.startsWith(`cannot reach ${url} (ECONNREFUSED): `)).toBe(true);
    expect(failure.message.endsWith("; check the URL and that the server runs")).toBe(true);
    expect(failure.cause).toBeInstanceOf(TypeError);
    // Refused is not a reset: nothing was sent, but nothing says the server will be there on a retry.
    expect(isConnectionReset(failure)).toBe(false);
  });

  it("reaches the caller of a Client as that error", async () => {
    const url = await deadUrl();
    const client = new Client(url);
    await expect(client.connect()).rejects.toMatchObject({
      name: "ConnectionFailedError",
      reason: "ECONNREFUSED",
    });
  });

  it("lets an abort through as it is", async () => {
    const url = await deadUrl();
    const controller = new AbortController();
    controller.abort();
    const error = await nameConnectionFailures(fetch)(url, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(ConnectionFailedError);
    expect((error as Error).name).toBe("AbortError");
  });

  it("counts a reset before the answer as a reset, named or bare", () => {
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    expect(isConnectionReset(reset)).toBe(true);
    expect(isConnectionReset(new ConnectionFailedError("http://127.0.0.1:1/mcp", reset))).toBe(true);
  });
});
