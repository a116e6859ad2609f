import { describe, expect, it } from "vitest";
import type { ClientRegistration } from "./client-registration.js";
import { TokenKeeper } from "./token-keeper.js";
import { memoryTokenStore } from "./token-store.js";

const place = { issuer: "https://as.example", resource: "https://mcp.example/mcp", key: "k" };
const dynamic: ClientRegistration = {
  clientId: "dyn",
  clientSecret: "s",
  method: "client_secret_basic",
  source: "dynamic",
};
const preRegistered: ClientRegistration = { ...dynamic, clientId: "pre", source: "pre-registered" };

describe("TokenKeeper", () => {
  it("files a token response with its expiry, the granted or else requested scope, and a dynamic client's secret", async () => {
    const keeper = new TokenKeeper(memoryTokenStore(), () => 1_000);
    const stored = await keeper.save(
      place,
      dynamic,
      { accessToken: "at", tokenType: "Bearer", expiresIn: 60 },
      "a b",
    );
    expect(stored).toEqual({
      issuer: place.issuer,
      resource: place.resource,
      clientId: "dyn",
      accessToken: "at",
      tokenType: "Bearer",
      scope: "a b",
      expiresAt: 61_000,
      clientSecret: "s",
    });
    expect(await keeper.get("k")).toEqual(stored);
    const granted = await keeper.save(
      place,
      preRegistered,
      { accessToken: "at", tokenType: "Bearer", scope: "a" },
      "a b",
    );
    expect(granted.scope).toBe("a");
    expect(granted.clientSecret).toBeUndefined();
  });

  it("counts a token as expired 30 seconds early", () => {
    let now = 0;
    const keeper = new TokenKeeper(memoryTokenStore(), () => now);
    const tokens = { ...place, clientId: "c", accessToken: "at", tokenType: "Bearer", expiresAt: 60_000 };
    now = 29_999;
    expect(keeper.expired(tokens)).toBe(false);
    now = 30_000;
    expect(keeper.expired(tokens)).toBe(true);
    expect(keeper.expired({ ...tokens, expiresAt: undefined })).toBe(false);
  });

  it("tracks the keys it touched: delete keeps tracking, forget stops", async () => {
    const keeper = new TokenKeeper(memoryTokenStore(), Date.now);
    await keeper.save(place, preRegistered, { accessToken: "at", tokenType: "Bearer" }, undefined);
    keeper.track("other");
    await keeper.delete("k");
    expect(await keeper.get("k")).toBeUndefined();
    expect(keeper.keys()).toEqual(["k", "other"]);
    await keeper.forget("other");
    expect(keeper.keys()).toEqual(["k"]);
    keeper.untrackAll();
    expect(keeper.keys()).toEqual([]);
  });
});
