import { describe, expect, it } from "vitest";
import { createPostClient } from "./http-client.js";

describe("the bench's HTTP client", () => {
  it("refuses to send load anywhere but loopback", () => {
    expect(() => createPostClient("10.0.0.1", 80, { sockets: 1, timeoutMs: 10 })).toThrow(/loopback/);
  });
});
