import { describe, expect, it } from "vitest";
import { effectiveScopes, grantedScopes, missingScopes } from "./scopes.js";

describe("grantedScopes", () => {
  it("reads a space-separated scope claim, ignoring repeated spaces", () => {
    expect(grantedScopes({ scope: "mcp:tools  mcp:deploy" })).toEqual(["mcp:tools", "mcp:deploy"]);
  });

  it("reads an scp array or string when there is no scope claim", () => {
    expect(grantedScopes({ scp: ["a", 7, "b"] })).toEqual(["a", "b"]);
    expect(grantedScopes({ scp: "a b" })).toEqual(["a", "b"]);
  });

  it("grants nothing when neither claim is there", () => {
    expect(grantedScopes({ sub: "x" })).toEqual([]);
  });
});

describe("scope hierarchy", () => {
  const hierarchy = { "mcp:admin": ["mcp:deploy", "mcp:tools"], "mcp:deploy": ["mcp:build"], loop: ["loop"] };

  it("follows implied scopes transitively and survives cycles", () => {
    expect([...effectiveScopes(["mcp:admin", "loop"], hierarchy)].sort()).toEqual(
      ["loop", "mcp:admin", "mcp:build", "mcp:deploy", "mcp:tools"].sort(),
    );
  });

  it("reports only what the grant does not cover, in the order asked", () => {
    expect(missingScopes(["mcp:deploy"], ["mcp:tools", "mcp:build", "mcp:deploy"], hierarchy)).toEqual([
      "mcp:tools",
    ]);
    expect(missingScopes(["mcp:admin"], ["mcp:tools", "mcp:build"], hierarchy)).toEqual([]);
  });

  it("does not let a narrower scope imply a broader one", () => {
    expect(missingScopes(["mcp:tools"], ["mcp:admin"], hierarchy)).toEqual(["mcp:admin"]);
  });
});
