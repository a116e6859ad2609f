import { describe, expect, it } from "vitest";
import { applyClientAuthentication, chooseTokenEndpointAuthMethod } from "./client-authentication.js";

describe("chooseTokenEndpointAuthMethod", () => {
  it("prefers client_secret_basic, then client_secret_post, for a client with a secret", () => {
    expect(chooseTokenEndpointAuthMethod(["client_secret_post", "client_secret_basic"], true)).toBe(
      "client_secret_basic",
    );
    expect(chooseTokenEndpointAuthMethod(["client_secret_post", "none"], true)).toBe("client_secret_post");
    expect(chooseTokenEndpointAuthMethod(undefined, true)).toBe("client_secret_basic");
  });

  it("is public without a secret", () => {
    expect(chooseTokenEndpointAuthMethod(["client_secret_basic"], false)).toBe("none");
  });

  it("explains when the server supports none of the methods", () => {
    expect(() => chooseTokenEndpointAuthMethod(["private_key_jwt"], true)).toThrow(/lists private_key_jwt/);
  });
});

describe("applyClientAuthentication", () => {
  it("form-encodes both parts before base64 for client_secret_basic (RFC 6749 §2.3.1)", () => {
    const headers = new Headers();
    const body = new URLSearchParams();
    applyClientAuthentication(
      { clientId: "id:1", clientSecret: "a b+c", method: "client_secret_basic" },
      headers,
      body,
    );
    expect(headers.get("authorization")).toBe(`Basic ${Buffer.from("id%3A1:a+b%2Bc").toString("base64")}`);
    expect([...body.keys()]).toEqual([]);
  });

  it("puts the id and secret in the body for client_secret_post, and only the id for none", () => {
    const headers = new Headers();
    const post = new URLSearchParams();
    applyClientAuthentication(
      { clientId: "c", clientSecret: "s", method: "client_secret_post" },
      headers,
      post,
    );
    expect(Object.fromEntries(post)).toEqual({ client_id: "c", client_secret: "s" });
    const none = new URLSearchParams();
    applyClientAuthentication({ clientId: "c", clientSecret: "s", method: "none" }, headers, none);
    expect(Object.fromEntries(none)).toEqual({ client_id: "c" });
    expect(headers.has("authorization")).toBe(false);
  });

  it("refuses a secret-based method without a secret", () => {
    expect(() =>
      applyClientAuthentication(
        { clientId: "c", method: "client_secret_basic" },
        new Headers(),
        new URLSearchParams(),
      ),
    ).toThrow(/needs a client secret/);
  });
});
