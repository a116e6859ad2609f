import { describe, expect, it } from "vitest";
import type { ClientRegistration } from "./client-registration.js";
import {
  memoryTokenStore,
  type StoredTokens,
  tokenStoreKey,
  tokensExpired,
  tokensToStore,
} from "./token-store.js";

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

const place = { issuer: "https://as.example", resource: "https://mcp.example/mcp" };
const dynamic: ClientRegistration = {
  clientId: "dyn",
  clientSecret: "s",
  method: "client_secret_basic",
  source: "dynamic",
};
const preRegistered: ClientRegistration = { ...dynamic, clientId: "pre", source: "pre-registered" };

describe("tokensToStore", () => {
  it("keeps the expiry, the granted or else requested scope, and a dynamic client's secret", () => {
    const response = { accessToken: "at", tokenType: "bearer", expiresIn: 60 };
    expect(tokensToStore(place, dynamic, response, "a b", 1_000)).toEqual({
      ...place,
      clientId: "dyn",
      accessToken: "at",
      tokenType: "bearer",
      scope: "a b",
      expiresAt: 61_000,
      clientSecret: "s",
    });
    const granted = tokensToStore(place, preRegistered, { ...response, scope: "a" }, "a b", 1_000);
    expect(granted.scope).toBe("a");
    expect(granted.clientSecret).toBeUndefined();
  });
});

describe("tokensExpired", () => {
  it("counts a token as expired 30 seconds early", () => {
    expect(tokensExpired({ ...tokens, expiresAt: 60_000 }, 29_999)).toBe(false);
    expect(tokensExpired({ ...tokens, expiresAt: 60_000 }, 30_000)).toBe(true);
    expect(tokensExpired(tokens, 1e15)).toBe(false);
  });
});
