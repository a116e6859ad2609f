import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { authorizationCodeEndpoints, startAuthorization } from "./authorization-code.js";

/** RFC 7636 §4.2, computed independently of the library that made the challenge. */
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

const server = {
  issuer: "https://as.example",
  authorization_endpoint: "https://as.example/authorize?tenant=t",
  token_endpoint: "https://as.example/token",
  code_challenge_methods_supported: ["S256"],
};

describe("authorizationCodeEndpoints", () => {
  it("gives both endpoints of a server that advertises S256", () => {
    const endpoints = authorizationCodeEndpoints(server);
    expect(endpoints.authorizationEndpoint.href).toBe(server.authorization_endpoint);
    expect(endpoints.tokenEndpoint.href).toBe(server.token_endpoint);
  });

  it("refuses a server without S256, a missing endpoint, and plain http off loopback", () => {
    expect(() =>
      authorizationCodeEndpoints({ ...server, code_challenge_methods_supported: ["plain"] }),
    ).toThrow(expect.objectContaining({ code: "unsupported" }));
    expect(() => authorizationCodeEndpoints({ ...server, token_endpoint: undefined })).toThrow(
      expect.objectContaining({ code: "authorization_server_metadata" }),
    );
    const insecure = { ...server, authorization_endpoint: "http://as.example/authorize" };
    expect(() => authorizationCodeEndpoints(insecure)).toThrow(
      expect.objectContaining({ code: "insecure_url" }),
    );
    expect(authorizationCodeEndpoints(insecure, true).authorizationEndpoint.protocol).toBe("http:");
  });
});

describe("startAuthorization", () => {
  const request = {
    clientId: "c",
    redirectUri: "http://127.0.0.1:1/cb",
    resource: "https://mcp.example/mcp",
  };

  it("builds the request with a fresh state and the S256 challenge of the verifier it returns", async () => {
    const started = await startAuthorization(new URL(server.authorization_endpoint), {
      ...request,
      scope: "a b",
    });
    const query = started.url.searchParams;
    expect(started.url.origin + started.url.pathname).toBe("https://as.example/authorize");
    expect(Object.fromEntries(query)).toEqual({
      tenant: "t",
      response_type: "code",
      client_id: "c",
      redirect_uri: request.redirectUri,
      scope: "a b",
      state: started.state,
      code_challenge: s256(started.codeVerifier),
      code_challenge_method: "S256",
      resource: request.resource,
    });
    const again = await startAuthorization(new URL(server.authorization_endpoint), request);
    expect(again.state).not.toBe(started.state);
    expect(again.codeVerifier).not.toBe(started.codeVerifier);
    expect(again.url.searchParams.has("scope")).toBe(false);
    expect(started.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  });

  it("asks for consent when it asks for offline_access", async () => {
    const started = await startAuthorization(new URL(server.authorization_endpoint), {
      ...request,
      scope: "a offline_access",
    });
    expect(started.url.searchParams.get("prompt")).toBe("consent");
  });
});
