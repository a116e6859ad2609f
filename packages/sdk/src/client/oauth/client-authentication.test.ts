import { describe, expect, it } from "vitest";
import { chooseTokenEndpointAuthMethod } from "./client-authentication.js";

describe("chooseTokenEndpointAuthMethod", () => {
  it("prefers client_secret_basic, then client_secret_post, then client_secret_jwt, for a client with a secret", () => {
    expect(chooseTokenEndpointAuthMethod(["client_secret_post", "client_secret_basic"], true)).toBe(
      "client_secret_basic",
    );
    expect(chooseTokenEndpointAuthMethod(["client_secret_post", "none"], true)).toBe("client_secret_post");
    expect(chooseTokenEndpointAuthMethod(["client_secret_jwt", "none"], true)).toBe("client_secret_jwt");
    expect(chooseTokenEndpointAuthMethod(undefined, true)).toBe("client_secret_basic");
  });

  it("is public without a secret", () => {
    expect(chooseTokenEndpointAuthMethod(["client_secret_basic"], false)).toBe("none");
  });

  it("explains when the server supports none of the methods", () => {
    expect(() => chooseTokenEndpointAuthMethod(["private_key_jwt"], true)).toThrow(/lists private_key_jwt/);
  });
});
