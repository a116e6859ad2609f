import { describe, expect, it } from "vitest";
import { selectScope, splitScope } from "./scope-selection.js";

describe("selectScope", () => {
  it("takes the challenge's scope first, then the resource's scopes_supported, then none", () => {
    expect(selectScope({ challenged: ["a"], resourceScopes: ["b", "c"], wantsRefreshToken: false })).toBe(
      "a",
    );
    expect(selectScope({ challenged: [], resourceScopes: ["b", "c"], wantsRefreshToken: false })).toBe("b c");
    expect(
      selectScope({ wantsRefreshToken: true, authorizationServerScopes: ["offline_access"] }),
    ).toBeUndefined();
  });

  it("unions the previous scopes into a step-up, without duplicates", () => {
    expect(selectScope({ previous: ["a", "b"], challenged: ["b", "c"], wantsRefreshToken: false })).toBe(
      "a b c",
    );
    expect(
      selectScope({
        previous: ["a", "offline_access"],
        challenged: ["c"],
        authorizationServerScopes: ["offline_access"],
        wantsRefreshToken: true,
      }),
    ).toBe("a c offline_access");
    expect(
      selectScope({ previous: ["a", "offline_access"], challenged: ["c"], wantsRefreshToken: true }),
    ).toBe("a c");
  });

  it("adds offline_access only for refresh-capable clients and only when the authorization server lists it", () => {
    const inputs = { resourceScopes: ["a"], authorizationServerScopes: ["a", "offline_access"] };
    expect(selectScope({ ...inputs, wantsRefreshToken: true })).toBe("a offline_access");
    expect(selectScope({ ...inputs, wantsRefreshToken: false })).toBe("a");
    expect(
      selectScope({ resourceScopes: ["a"], authorizationServerScopes: ["a"], wantsRefreshToken: true }),
    ).toBe("a");
    expect(selectScope({ resourceScopes: ["a"], wantsRefreshToken: true })).toBe("a");
  });
});

describe("splitScope", () => {
  it("splits on any whitespace and drops empties", () => {
    expect(splitScope(" a  b\tc ")).toEqual(["a", "b", "c"]);
    expect(splitScope(undefined)).toEqual([]);
  });
});
