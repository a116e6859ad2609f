import { exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthChallenge } from "../auth-provider.js";
import { OAuthError } from "./errors.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import { oauthClientProvider } from "./oauth-client-provider.js";
import {
  type ScriptedAuthorizationServer,
  startScriptedAuthorizationServer,
} from "./test-support/scripted-authorization-server.js";
import { memoryTokenStore, tokenStoreKey } from "./token-store.js";

let as: ScriptedAuthorizationServer;
beforeEach(async () => {
  as = await startScriptedAuthorizationServer();
});
afterEach(() => as.close());

function challenge(overrides: Partial<AuthChallenge> = {}): AuthChallenge {
  return {
    resource: new URL(as.resourceUrl),
    status: 401,
    wwwAuthenticate: `Bearer resource_metadata="${as.origin}/.well-known/oauth-protected-resource/mcp"`,
    attempt: 1,
    ...overrides,
  };
}

function codeClient(options: Partial<OAuthClientOptions> = {}) {
  return oauthClientProvider({ grant: "authorization_code", redirect: as.redirect, ...options });
}

describe("oauthClientProvider, authorization code", () => {
  it("sends nothing before the first challenge, then signs in with PKCE and resource and sends the token", async () => {
    const provider = codeClient({ clientId: "pre", tokenEndpointAuthMethod: "none" });
    const resource = new URL(as.resourceUrl);
    expect(await provider.authorization(resource)).toBeUndefined();
    expect(await provider.handleChallenge(challenge())).toBe(true);
    expect(await provider.authorization(resource)).toBe("Bearer at-1");

    const [authorize] = as.authorizations;
    expect(authorize?.searchParams.get("response_type")).toBe("code");
    expect(authorize?.searchParams.get("client_id")).toBe("pre");
    expect(authorize?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize?.searchParams.get("resource")).toBe(as.resourceUrl);
    expect(authorize?.searchParams.get("scope")).toBe("mcp:read");
    const [token] = as.tokenCalls;
    expect(token?.form.get("grant_type")).toBe("authorization_code");
    expect(token?.form.get("code")).toBe("the-code");
    expect(token?.form.get("resource")).toBe(as.resourceUrl);
    expect(token?.form.get("redirect_uri")).toBe(as.redirect.redirectUri);
    // The verifier sent with the code is the one the challenge was made from.
    const verifier = token?.form.get("code_verifier") ?? "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    expect(Buffer.from(digest).toString("base64url")).toBe(authorize?.searchParams.get("code_challenge"));
  });

  it("uses the challenge's scope before the resource's scopes_supported", async () => {
    const provider = codeClient({ clientId: "pre" });
    await provider.handleChallenge(challenge({ wwwAuthenticate: 'Bearer scope="files:read files:list"' }));
    expect(as.authorizations[0]?.searchParams.get("scope")).toBe("files:read files:list");
  });

  it("sends no scope when neither the challenge nor the metadata names one", async () => {
    delete as.resourceMetadata.scopes_supported;
    const provider = codeClient({ clientId: "pre" });
    await provider.handleChallenge(challenge());
    expect(as.authorizations[0]?.searchParams.has("scope")).toBe(false);
  });

  it("asks for offline_access only when the authorization server lists it", async () => {
    as.metadata.scopes_supported = ["mcp:read", "offline_access"];
    await codeClient({ clientId: "pre" }).handleChallenge(challenge());
    expect(as.authorizations[0]?.searchParams.get("scope")).toBe("mcp:read offline_access");
    expect(as.authorizations[0]?.searchParams.get("prompt")).toBe("consent");
    as.metadata.scopes_supported = ["mcp:read"];
    await codeClient({ clientId: "pre" }).handleChallenge(challenge());
    expect(as.authorizations[1]?.searchParams.has("prompt")).toBe(false);
    expect(as.authorizations[1]?.searchParams.get("scope")).toBe("mcp:read");
  });

  it("steps up on 403 insufficient_scope with the union of the scopes, a bounded number of times", async () => {
    const provider = codeClient({ clientId: "pre", maxStepUps: 2 });
    await provider.handleChallenge(challenge({ wwwAuthenticate: 'Bearer scope="a"' }));
    const refused = 'Bearer error="insufficient_scope", scope="b"';
    expect(
      await provider.handleChallenge(challenge({ status: 403, wwwAuthenticate: refused, attempt: 2 })),
    ).toBe(true);
    expect(as.authorizations[1]?.searchParams.get("scope")).toBe("a b");
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer at-2");
    expect(
      await provider.handleChallenge(challenge({ status: 403, wwwAuthenticate: refused, attempt: 3 })),
    ).toBe(true);
    expect(
      await provider.handleChallenge(challenge({ status: 403, wwwAuthenticate: refused, attempt: 4 })),
    ).toBe(false);
    expect(as.authorizations).toHaveLength(3);
  });

  it("counts step-ups per request, so a request refused with 403 from the start also gets only maxStepUps", async () => {
    const provider = codeClient({ clientId: "pre", maxStepUps: 1 });
    await provider.handleChallenge(challenge());
    const refused = 'Bearer error="insufficient_scope", scope="b"';
    const step = (attempt: number) =>
      provider.handleChallenge(challenge({ status: 403, wwwAuthenticate: refused, attempt }));
    expect([await step(1), await step(2)]).toEqual([true, false]);
    // The next request starts its own count.
    expect([await step(1), await step(2)]).toEqual([true, false]);
    expect(as.authorizations).toHaveLength(3);
  });

  it("does not treat a 403 other than insufficient_scope as a reason to sign in", async () => {
    const provider = codeClient({ clientId: "pre" });
    expect(
      await provider.handleChallenge(
        challenge({ status: 403, wwwAuthenticate: 'Bearer error="invalid_token"' }),
      ),
    ).toBe(false);
    expect(as.authorizations).toHaveLength(0);
  });

  it("refuses a response whose iss differs from the issuer, even by a trailing slash, before redeeming the code", async () => {
    as.onAuthorize = (url) =>
      new URLSearchParams({ code: "c", state: url.searchParams.get("state") ?? "", iss: `${as.issuer}/` });
    const failure = await codeClient({ clientId: "pre" })
      .handleChallenge(challenge())
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OAuthError);
    expect((failure as OAuthError).code).toBe("authorization_response");
    expect(as.tokenCalls).toHaveLength(0);
  });

  it("refuses a response without iss when the server advertises it, and accepts one when it does not", async () => {
    as.onAuthorize = (url) => new URLSearchParams({ code: "c", state: url.searchParams.get("state") ?? "" });
    await expect(codeClient({ clientId: "pre" }).handleChallenge(challenge())).rejects.toThrow(
      /no iss parameter/,
    );
    delete as.metadata.authorization_response_iss_parameter_supported;
    expect(await codeClient({ clientId: "pre" }).handleChallenge(challenge())).toBe(true);
    expect(as.tokenCalls).toHaveLength(1);
  });

  it("refuses metadata whose resource is another server, before any authorization request", async () => {
    as.resourceMetadata.resource = "https://evil.example/mcp";
    const failure = await codeClient({ clientId: "pre" })
      .handleChallenge(challenge())
      .catch((e: unknown) => e);
    expect((failure as OAuthError).code).toBe("resource_mismatch");
    expect(as.authorizations).toHaveLength(0);
  });

  it("refuses to proceed when the authorization server does not advertise PKCE S256", async () => {
    as.metadata.code_challenge_methods_supported = ["plain"];
    await expect(codeClient({ clientId: "pre" }).handleChallenge(challenge())).rejects.toThrow(/PKCE S256/);
    expect(as.authorizations).toHaveLength(0);
  });

  it("registers dynamically when nothing is configured, as a native public client", async () => {
    const provider = codeClient();
    await provider.handleChallenge(challenge());
    expect(as.registrations).toHaveLength(1);
    expect(as.registrations[0]).toMatchObject({
      application_type: "native",
      redirect_uris: [as.redirect.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect(as.authorizations[0]?.searchParams.get("client_id")).toBe("dynamic-1");
    expect(as.tokenCalls[0]?.form.get("client_id")).toBe("dynamic-1");
  });

  it("uses the client metadata URL as client_id when the server supports metadata documents", async () => {
    as.metadata.client_id_metadata_document_supported = true;
    const url = "https://client.example/mcp-client.json";
    await codeClient({ clientMetadataUrl: url }).handleChallenge(challenge());
    expect(as.registrations).toHaveLength(0);
    expect(as.authorizations[0]?.searchParams.get("client_id")).toBe(url);
    // Without that support the same configuration falls back to registration.
    delete as.metadata.client_id_metadata_document_supported;
    await codeClient({ clientMetadataUrl: url }).handleChallenge(challenge());
    expect(as.registrations).toHaveLength(1);
  });

  it("refreshes an expired token with the same resource, keeping the refresh token when none is returned", async () => {
    let now = 1_000_000;
    const provider = codeClient({ clientId: "pre", now: () => now });
    await provider.handleChallenge(challenge());
    now += 301_000;
    as.onToken = () => ({ body: { access_token: "renewed", token_type: "bearer", expires_in: 300 } });
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer renewed");
    const refresh = as.tokenCalls[1];
    expect(refresh?.form.get("grant_type")).toBe("refresh_token");
    expect(refresh?.form.get("refresh_token")).toBe("rt-1");
    expect(refresh?.form.get("resource")).toBe(as.resourceUrl);
    now += 301_000;
    await provider.authorization(new URL(as.resourceUrl));
    expect(as.tokenCalls[2]?.form.get("refresh_token")).toBe("rt-1");
  });

  it("signs in again when the refresh token is refused", async () => {
    let now = 1_000_000;
    const provider = codeClient({ clientId: "pre", now: () => now });
    await provider.handleChallenge(challenge());
    now += 301_000;
    as.onToken = () => ({ status: 400, body: { error: "invalid_grant" } });
    expect(await provider.authorization(new URL(as.resourceUrl))).toBeUndefined();
  });

  it("uses a stored token first, and refreshes when the server refuses the token it was sent", async () => {
    const store = memoryTokenStore();
    await codeClient({ clientId: "pre", store }).handleChallenge(challenge());
    // A new process: the first request went out without a token, the stored one is used without sign-in.
    const later = codeClient({ clientId: "pre", store });
    expect(await later.authorization(new URL(as.resourceUrl))).toBeUndefined();
    expect(await later.handleChallenge(challenge())).toBe(true);
    expect(await later.authorization(new URL(as.resourceUrl))).toBe("Bearer at-1");
    expect(as.authorizations).toHaveLength(1);
    // That token is refused: the refresh token gets a new one, still without sign-in.
    expect(await later.handleChallenge(challenge())).toBe(true);
    expect(as.tokenCalls.at(-1)?.form.get("grant_type")).toBe("refresh_token");
    expect(as.authorizations).toHaveLength(1);
  });

  it("drops the old issuer's tokens and registration when the resource moves to another authorization server", async () => {
    const next = await startScriptedAuthorizationServer();
    try {
      const store = memoryTokenStore();
      // The user agent lands on whichever authorization server the URL names.
      const redirect = {
        redirectUri: as.redirect.redirectUri,
        authorize: (url: URL) =>
          url.origin === next.origin ? next.redirect.authorize(url) : as.redirect.authorize(url),
      };
      const provider = codeClient({ store, redirect });
      await provider.handleChallenge(challenge());
      const oldKey = tokenStoreKey(as.issuer, as.resourceUrl);
      expect((await store.get(oldKey))?.clientId).toBe("dynamic-1");

      as.resourceMetadata.authorization_servers = [next.issuer];
      expect(await provider.handleChallenge(challenge())).toBe(true);
      expect(await store.get(oldKey)).toBeUndefined();
      expect(next.registrations).toHaveLength(1);
      expect(next.authorizations[0]?.searchParams.get("client_id")).toBe("dynamic-1");
      expect(next.tokenCalls[0]?.form.get("code")).toBe("the-code");
      // The new server's token, under the new issuer's key.
      expect(await store.get(tokenStoreKey(next.issuer, as.resourceUrl))).toMatchObject({
        issuer: next.issuer,
        accessToken: "at-1",
      });
      expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer at-1");
      expect(as.tokenCalls).toHaveLength(1);
      // Logout reaches the new issuer's tokens only: the old ones were dropped with the move.
      await provider.logout();
      expect(next.revocations.map((call) => call.form.get("token"))).toEqual(["rt-1", "at-1"]);
      expect(as.revocations).toEqual([]);
      expect(await store.get(tokenStoreKey(next.issuer, as.resourceUrl))).toBeUndefined();
    } finally {
      await next.close();
    }
  });

  it("shares one sign-in between concurrent refusals", async () => {
    const provider = codeClient({ clientId: "pre" });
    const results = await Promise.all([
      provider.handleChallenge(challenge()),
      provider.handleChallenge(challenge()),
    ]);
    expect(results).toEqual([true, true]);
    expect(as.authorizations).toHaveLength(1);
  });

  it("logout revokes the refresh and access tokens with the client's authentication before forgetting them", async () => {
    const store = memoryTokenStore();
    const provider = oauthClientProvider({
      grant: "authorization_code",
      redirect: as.redirect,
      clientId: "pre",
      clientSecret: "pre-secret",
      clientIssuer: as.issuer,
      store,
    });
    await provider.handleChallenge(challenge());
    await provider.logout();
    expect(as.revocations.map((call) => [call.form.get("token"), call.form.get("token_type_hint")])).toEqual([
      ["rt-1", "refresh_token"],
      ["at-1", "access_token"],
    ]);
    expect(as.revocations[0]?.authorization).toBe(
      `Basic ${Buffer.from("pre:pre-secret").toString("base64")}`,
    );
    expect(await store.get(tokenStoreKey(as.issuer, as.resourceUrl, "pre"))).toBeUndefined();
  });

  it("logout revokes once the tokens two endpoints of one resource share", async () => {
    const provider = codeClient({ clientId: "pre" });
    const tools = new URL(`${as.resourceUrl}/tools`);
    await provider.handleChallenge(challenge());
    expect(await provider.handleChallenge(challenge({ resource: tools }))).toBe(true);
    expect(await provider.authorization(tools)).toBe("Bearer at-1");
    await provider.logout();
    expect(as.revocations.map((call) => call.form.get("token"))).toEqual(["rt-1", "at-1"]);
    expect(await provider.authorization(tools)).toBeUndefined();
  });

  it("logout forgets the tokens even when revocation fails", async () => {
    const store = memoryTokenStore();
    const provider = codeClient({ clientId: "pre", store });
    await provider.handleChallenge(challenge());
    as.server.route("/revoke", (_req, res) => {
      res.socket?.destroy();
    });
    await provider.logout();
    expect(await store.get(tokenStoreKey(as.issuer, as.resourceUrl, "pre"))).toBeUndefined();
  });

  it("logout sends no token to a revocation endpoint off https, and forgets the tokens all the same", async () => {
    const store = memoryTokenStore();
    const urls: string[] = [];
    const recording: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    as.metadata.revocation_endpoint = "http://revoke.example/revoke";
    const provider = codeClient({ clientId: "pre", store, fetch: recording });
    await provider.handleChallenge(challenge());
    await provider.logout();
    expect(urls.filter((url) => url.includes("revoke"))).toEqual([]);
    expect(await store.get(tokenStoreKey(as.issuer, as.resourceUrl, "pre"))).toBeUndefined();
  });

  it("logout forgets the tokens in memory and in the store", async () => {
    const store = memoryTokenStore();
    const provider = codeClient({ clientId: "pre", store });
    await provider.handleChallenge(challenge());
    await provider.logout();
    expect(await store.get(tokenStoreKey(as.issuer, as.resourceUrl, "pre"))).toBeUndefined();
    expect(await provider.authorization(new URL(as.resourceUrl))).toBeUndefined();
  });
});

describe("oauthClientProvider, client credentials", () => {
  it("authenticates with client_secret_basic when supported and asks for the resource", async () => {
    const provider = oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "s3cret",
      clientIssuer: as.issuer,
    });
    expect(await provider.handleChallenge(challenge())).toBe(true);
    const [call] = as.tokenCalls;
    expect(call?.form.get("grant_type")).toBe("client_credentials");
    expect(call?.form.get("resource")).toBe(as.resourceUrl);
    expect(call?.form.get("scope")).toBe("mcp:read");
    expect(call?.form.has("client_secret")).toBe(false);
    expect(call?.authorization).toBe(`Basic ${Buffer.from("svc:s3cret").toString("base64")}`);
    expect(as.authorizations).toHaveLength(0);
  });

  it("uses client_secret_post when that is all the server supports, and never asks for offline_access", async () => {
    as.metadata.token_endpoint_auth_methods_supported = ["client_secret_post"];
    as.metadata.scopes_supported = ["mcp:read", "offline_access"];
    await oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "x",
      clientIssuer: as.issuer,
    }).handleChallenge(challenge());
    const [call] = as.tokenCalls;
    expect(call?.authorization).toBeUndefined();
    expect(call?.form.get("client_id")).toBe("svc");
    expect(call?.form.get("client_secret")).toBe("x");
    expect(call?.form.get("scope")).toBe("mcp:read");
  });

  it("requests a new token once the old one expires, since there is no refresh token", async () => {
    let now = 5_000_000;
    as.onToken = () => ({
      body: { access_token: `cc-${as.tokenCalls.length}`, token_type: "Bearer", expires_in: 60 },
    });
    const provider = oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "x",
      clientIssuer: as.issuer,
      now: () => now,
    });
    await provider.handleChallenge(challenge());
    now += 61_000;
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer cc-2");
    expect(as.tokenCalls.map((call) => call.form.get("grant_type"))).toEqual([
      "client_credentials",
      "client_credentials",
    ]);
  });

  it("reports a refused token request with the server's error code and no secret", async () => {
    as.onToken = () => ({ status: 401, body: { error: "invalid_client" } });
    const failure = (await oauthClientProvider({
      grant: "client_credentials",
      clientId: "svc",
      clientSecret: "hunter2",
      clientIssuer: as.issuer,
    })
      .handleChallenge(challenge())
      .catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("token_request");
    expect(failure.oauthError).toBe("invalid_client");
    expect(failure.message).toMatch(/check the client id and secret/);
    expect(failure.message).not.toContain("hunter2");
  });

  it("signs in a pre-registered private_key_jwt client with an assertion its public key verifies", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const provider = oauthClientProvider({
      grant: "client_credentials",
      clientId: "keyed",
      clientPrivateKey: { key: await exportPKCS8(privateKey), alg: "ES256" },
      clientIssuer: as.issuer,
    });
    expect(await provider.handleChallenge(challenge())).toBe(true);
    const form = as.tokenCalls[0]?.form;
    expect(form?.get("client_secret")).toBeNull();
    expect(as.tokenCalls[0]?.authorization).toBeUndefined();
    await expect(
      jwtVerify(form?.get("client_assertion") ?? "", publicKey, { issuer: "keyed", audience: as.issuer }),
    ).resolves.toMatchObject({ payload: { sub: "keyed" } });
  });
});

describe("oauthClientProvider, a pre-registered client's issuer", () => {
  it("never sends the client's secret to an authorization server other than its issuer, even after signing in", async () => {
    const other = await startScriptedAuthorizationServer();
    try {
      const provider = oauthClientProvider({
        grant: "client_credentials",
        clientId: "svc",
        clientSecret: "hunter2",
        clientIssuer: as.issuer,
      });
      expect(await provider.handleChallenge(challenge())).toBe(true);
      as.resourceMetadata.authorization_servers = [other.issuer];
      const failure = (await provider
        .handleChallenge(challenge({ attempt: 2 }))
        .catch((e: unknown) => e)) as OAuthError;
      expect(failure).toBeInstanceOf(OAuthError);
      expect(failure.code).toBe("client_issuer");
      expect(failure.message).toContain(other.issuer);
      expect(failure.message).toContain(as.issuer);
      expect(failure.message).not.toContain("hunter2");
      expect(other.tokenCalls).toHaveLength(0);
      expect(as.tokenCalls).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it("does not present a public client's id to another issuer's authorization endpoint", async () => {
    const other = await startScriptedAuthorizationServer();
    try {
      as.resourceMetadata.authorization_servers = [other.issuer];
      const provider = codeClient({ clientId: "pre", clientIssuer: as.issuer });
      await expect(provider.handleChallenge(challenge())).rejects.toMatchObject({ code: "client_issuer" });
      expect(other.authorizations).toHaveLength(0);
      expect(other.registrations).toHaveLength(0);
      expect(other.tokenCalls).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe("oauthClientProvider options", () => {
  it("refuses an authorization_code configuration without a redirect", () => {
    expect(() => oauthClientProvider({ grant: "authorization_code" })).toThrow(/needs redirect/);
  });

  it("refuses a private key without a client id, and a PEM key without its algorithm", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----";
    expect(() =>
      oauthClientProvider({ grant: "client_credentials", clientPrivateKey: { key: pem, alg: "ES256" } }),
    ).toThrow(/without clientId/);
    expect(() =>
      oauthClientProvider({ grant: "client_credentials", clientId: "c", clientPrivateKey: { key: pem } }),
    ).toThrow(/without alg/);
  });

  it("refuses a secret without a client id, and a client metadata URL that is not https with a path", () => {
    expect(() => oauthClientProvider({ grant: "client_credentials", clientSecret: "x" })).toThrow(
      /without clientId/,
    );
    expect(() =>
      oauthClientProvider({
        grant: "client_credentials",
        clientMetadataUrl: "http://client.example/doc.json",
      }),
    ).toThrow(/https URL with a path/);
    expect(() =>
      oauthClientProvider({ grant: "client_credentials", clientMetadataUrl: "https://client.example/" }),
    ).toThrow(/https URL with a path/);
  });

  it("refuses a secret without its issuer, an issuer without a client id, and an issuer off https", () => {
    expect(() =>
      oauthClientProvider({ grant: "client_credentials", clientId: "svc", clientSecret: "x" }),
    ).toThrow(/without clientIssuer/);
    expect(() =>
      oauthClientProvider({ grant: "client_credentials", clientIssuer: "https://as.example" }),
    ).toThrow(/without clientId/);
    expect(() =>
      oauthClientProvider({
        grant: "client_credentials",
        clientId: "svc",
        clientSecret: "x",
        clientIssuer: "http://as.example",
      }),
    ).toThrow(/must use https/);
  });

  it("refuses a redirect URI on plain http off loopback", () => {
    expect(() =>
      oauthClientProvider({
        grant: "authorization_code",
        redirect: { redirectUri: "http://app.example/cb", authorize: async () => new URLSearchParams() },
      }),
    ).toThrow(/must use https/);
  });
});
