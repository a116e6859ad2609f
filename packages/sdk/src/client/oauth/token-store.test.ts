import { describe, expect, it } from "vitest";
import { memoryTokenStore, type StoredTokens, tokenStoreKey } from "./token-store.js";

const tokens: StoredTokens = {
  issuer: "https://as.example",
  resource: "https://mcp.example/mcp",
  clientId: "c",
  accessToken: "at",
  tokenType: "Bearer",
};

describe("memoryTokenStore", () => {
  it("stores, returns copies, and deletes", async () => {
    const store = memoryTokenStore();
    await store.set("k", tokens);
    const read = await store.get("k");
    expect(read).toEqual(tokens);
    if (read) read.accessToken = "changed";
    expect((await store.get("k"))?.accessToken).toBe("at");
    await store.delete("k");
    expect(await store.get("k")).toBeUndefined();
  });
});

describe("tokenStoreKey", () => {
  it("differs by issuer, resource and client identity", () => {
    const keys = new Set([
      tokenStoreKey("https://as.example", "https://mcp.example/mcp"),
      tokenStoreKey("https://as2.example", "https://mcp.example/mcp"),
      tokenStoreKey("https://as.example", "https://mcp.example/other"),
      tokenStoreKey("https://as.example", "https://mcp.example/mcp", "client-a"),
      tokenStoreKey("https://as.example", "https://mcp.example/mcp", "client-b"),
    ]);
    expect(keys.size).toBe(5);
  });
});
