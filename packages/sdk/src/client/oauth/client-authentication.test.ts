import { describe, expect, it } from "vitest";
import { chooseTokenEndpointAuthMethod, clientAuthentication } from "./client-authentication.js";

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

const as = { issuer: "https://as.example" };

async function applied(client: Parameters<typeof clientAuthentication>[0]) {
  const headers = new Headers();
  const body = new URLSearchParams();
  await clientAuthentication(client)(as, { client_id: client.clientId }, body, headers);
  return { headers, body };
}

describe("clientAuthentication", () => {
  it("form-encodes both parts before base64 for client_secret_basic (RFC 6749 §2.3.1)", async () => {
    const { headers, body } = await applied({
      clientId: "id:1",
      clientSecret: "a b+c",
      method: "client_secret_basic",
    });
    expect(headers.get("authorization")).toBe(`Basic ${Buffer.from("id%3A1:a+b%2Bc").toString("base64")}`);
    expect([...body.keys()]).toEqual([]);
    // Unreserved characters stay as they are: servers that skip the decoding must still see the id.
    const plain = await applied({
      clientId: "pre-registered_1.a~",
      clientSecret: "s",
      method: "client_secret_basic",
    });
    expect(plain.headers.get("authorization")).toBe(
      `Basic ${Buffer.from("pre-registered_1.a~:s").toString("base64")}`,
    );
  });

  it("puts the id and secret in the body for client_secret_post, and only the id for none", async () => {
    const post = await applied({ clientId: "c", clientSecret: "s", method: "client_secret_post" });
    expect(Object.fromEntries(post.body)).toEqual({ client_id: "c", client_secret: "s" });
    const none = await applied({ clientId: "c", clientSecret: "s", method: "none" });
    expect(Object.fromEntries(none.body)).toEqual({ client_id: "c" });
    expect(none.headers.has("authorization")).toBe(false);
  });

  it("refuses a method whose secret or key is missing, before anything is sent", () => {
    expect(() => clientAuthentication({ clientId: "c", method: "client_secret_basic" })).toThrow(
      /needs a client secret/,
    );
    expect(() => clientAuthentication({ clientId: "c", method: "client_secret_jwt" })).toThrow(
      /needs a client secret/,
    );
    expect(() => clientAuthentication({ clientId: "c", method: "private_key_jwt" })).toThrow(
      /set clientPrivateKey/,
    );
  });
});
