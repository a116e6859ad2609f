import { describe, expect, it } from "vitest";
import {
  authorizationCodeEndpoints,
  redeemAuthorizationCode,
  startAuthorization,
} from "./authorization-code.js";
import { pkceChallenge } from "./pkce.js";

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
      code_challenge: await pkceChallenge(started.codeVerifier),
      code_challenge_method: "S256",
      resource: request.resource,
    });
    const again = await startAuthorization(new URL(server.authorization_endpoint), request);
    expect(again.state).not.toBe(started.state);
    expect(again.codeVerifier).not.toBe(started.codeVerifier);
    expect(again.url.searchParams.has("scope")).toBe(false);
  });

  it("asks for consent when it asks for offline_access", async () => {
    const started = await startAuthorization(new URL(server.authorization_endpoint), {
      ...request,
      scope: "a offline_access",
    });
    expect(started.url.searchParams.get("prompt")).toBe("consent");
  });
});

describe("redeemAuthorizationCode", () => {
  it("posts the code with its redirect URI, verifier and resource", async () => {
    let form: URLSearchParams | undefined;
    const fetchImpl = (async (_url: URL, init: RequestInit) => {
      form = init.body as URLSearchParams;
      return Response.json({ access_token: "at", token_type: "Bearer" });
    }) as typeof fetch;
    const tokens = await redeemAuthorizationCode(
      new URL(server.token_endpoint),
      {
        code: "the-code",
        redirectUri: "http://127.0.0.1:1/cb",
        codeVerifier: "v",
        resource: "https://mcp.example/mcp",
      },
      { clientId: "c", method: "none" },
      { fetch: fetchImpl },
    );
    expect(tokens).toEqual({ accessToken: "at", tokenType: "Bearer" });
    expect(Object.fromEntries(form ?? [])).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: "http://127.0.0.1:1/cb",
      code_verifier: "v",
      resource: "https://mcp.example/mcp",
      client_id: "c",
    });
  });
});
