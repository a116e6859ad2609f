import {
  DEFAULT_REDIRECT_URI,
  DevelopmentBrowser,
  type LocalAuthServer,
  requestToken,
  startLocalAuthServer,
} from "@roundtrip/local-auth";
import { Client } from "@roundtrip/sdk";
import { HttpStatusError } from "@roundtrip/sdk/client";
import {
  type AuthorizationRedirect,
  memoryTokenStore,
  type OAuthError,
  oauthClientProvider,
  type StoredTokens,
  tokenStoreKey,
} from "@roundtrip/sdk/oauth-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProtectedServer, startProtectedServer } from "./oauth/protected-server.js";

/**
 * The SDK's OAuth client (@roundtrip/sdk/oauth-client) against a real authorization server, oidc-provider
 * (the development server of infra/local), and a Roundtrip MCP server that verifies its JWTs: discovery,
 * client_credentials, authorization code with PKCE through the sign-in pages, refresh, step-up,
 * revocation at logout, and the iss and resource checks. The MCP client is the SDK's Client, with the
 * provider on its HTTP transport.
 */

let mcp: ProtectedServer;
let as: LocalAuthServer;

beforeAll(async () => {
  mcp = await startProtectedServer();
  as = await startLocalAuthServer({ resource: mcp.url, accessTokenTtlSec: 120 });
  mcp.protect(as.issuer);
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

interface Principal {
  tool: string;
  subject?: string;
  scopes?: string[];
}

async function call(client: Client, tool: string): Promise<Principal> {
  const result = await client.callTool(tool, {});
  const [content] = result.content;
  if (content?.type !== "text") throw new Error(`${tool} answered no text`);
  return JSON.parse(content.text) as Principal;
}

/**
 * The user agent of an authorization code flow: a browser that signs `user` in and consents on
 * oidc-provider's development pages, and hands back the query of the redirect to the redirect URI. Its
 * cookies last across authorizations, as a person's browser would. Each authorization URL it was sent
 * to is kept.
 */
interface ScriptedBrowser extends AuthorizationRedirect {
  visited: URL[];
}

function scriptedBrowser(user: string, redirectUri: string): ScriptedBrowser {
  const browser = new DevelopmentBrowser(user);
  const visited: URL[] = [];
  return {
    redirectUri,
    visited,
    async authorize(url) {
      visited.push(url);
      return (await browser.redirectTo(url, redirectUri)).searchParams;
    },
  };
}

/** A fetch that records each URL the provider reaches, so a test can show what it never called. */
function recordingFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input, init) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    },
  };
}

describe("client_credentials against oidc-provider", () => {
  it("discovers the authorization server, gets a token for the resource, and steps up for deploy", async () => {
    const auth = oauthClientProvider({
      grant: "client_credentials",
      clientId: "mcp-machine",
      clientSecret: "mcp-machine-secret",
      clientIssuer: as.issuer,
    });
    const client = new Client(mcp.url, { http: { auth } });
    expect(await call(client, "whoami")).toEqual({
      tool: "whoami",
      subject: "mcp-machine",
      scopes: ["mcp:tools"],
    });
    expect(await call(client, "deploy")).toMatchObject({ scopes: ["mcp:tools", "mcp:deploy"] });
    await client.close();
  });

  it("surfaces the token endpoint's refusal of wrong credentials as an actionable OAuthError", async () => {
    const auth = oauthClientProvider({
      grant: "client_credentials",
      clientId: "mcp-machine",
      clientSecret: "wrong",
      clientIssuer: as.issuer,
    });
    const failure = (await new Client(mcp.url, { http: { auth } })
      .connect()
      .catch((e: unknown) => e)) as OAuthError;
    expect(failure.name).toBe("OAuthError");
    expect(failure.oauthError).toBe("invalid_client");
    expect(failure.message).toContain("check the client id and secret");
    expect(failure.message).not.toContain("wrong");
  });
});

describe("authorization code with PKCE against oidc-provider", () => {
  function codeClient(
    browser: ScriptedBrowser,
    extra: { store?: ReturnType<typeof memoryTokenStore>; now?: () => number; fetch?: typeof fetch } = {},
  ) {
    return oauthClientProvider({
      grant: "authorization_code",
      clientId: "mcp-interactive",
      redirect: browser,
      ...extra,
    });
  }

  it("signs alice in through the login and consent pages, checks iss, and acts as her", async () => {
    const browser = scriptedBrowser("alice", DEFAULT_REDIRECT_URI);
    const client = new Client(mcp.url, { http: { auth: codeClient(browser) } });
    expect(await call(client, "whoami")).toMatchObject({ subject: "alice", scopes: ["mcp:tools"] });
    const [authorization] = browser.visited;
    expect(authorization?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization?.searchParams.get("resource")).toBe(mcp.url);
    // oidc-provider lists offline_access, so the client asks for a refresh token.
    expect(authorization?.searchParams.get("scope")).toBe("mcp:tools offline_access");
    await client.close();
  });

  it("steps up to deploy with a second sign-in asking for the union of the scopes", async () => {
    const browser = scriptedBrowser("bob", DEFAULT_REDIRECT_URI);
    const client = new Client(mcp.url, { http: { auth: codeClient(browser) } });
    expect(await call(client, "deploy")).toMatchObject({
      subject: "bob",
      scopes: ["mcp:tools", "mcp:deploy"],
    });
    expect(browser.visited.map((url) => url.searchParams.get("scope"))).toEqual([
      "mcp:tools offline_access",
      "mcp:tools mcp:deploy offline_access",
    ]);
    await client.close();
  });

  it("refreshes an expired access token with the refresh token, without another sign-in", async () => {
    let now = Date.now();
    const store = memoryTokenStore();
    const browser = scriptedBrowser("alice", DEFAULT_REDIRECT_URI);
    const client = new Client(mcp.url, { http: { auth: codeClient(browser, { store, now: () => now }) } });
    await call(client, "whoami");
    const key = tokenStoreKey(as.issuer, mcp.url, "mcp-interactive");
    const first = (await store.get(key)) as StoredTokens;
    expect(first.refreshToken).toEqual(expect.any(String));
    now += 3_600_000;
    expect(await call(client, "whoami")).toMatchObject({ subject: "alice" });
    const renewed = (await store.get(key)) as StoredTokens;
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(browser.visited).toHaveLength(1);
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${renewed.accessToken}`);
    await client.close();
  });

  it("logout revokes the refresh token at oidc-provider and forgets the tokens", async () => {
    const key = tokenStoreKey(as.issuer, mcp.url, "mcp-interactive");
    const refreshWith = (refreshToken: string | undefined) =>
      requestToken(as.tokenEndpoint, {
        grant_type: "refresh_token",
        refresh_token: refreshToken ?? "",
        client_id: "mcp-interactive",
        resource: mcp.url,
      });
    const signIn = async () => {
      const store = memoryTokenStore();
      const auth = codeClient(scriptedBrowser("alice", DEFAULT_REDIRECT_URI), { store });
      const client = new Client(mcp.url, { http: { auth } });
      await call(client, "whoami");
      await client.close();
      return { auth, store, tokens: (await store.get(key)) as StoredTokens };
    };

    // Without logout, that refresh request is good: its failure below is the revocation's doing.
    const kept = await signIn();
    await expect(refreshWith(kept.tokens.refreshToken)).resolves.toMatchObject({
      accessToken: expect.any(String),
    });

    const signedOut = await signIn();
    await signedOut.auth.logout();
    expect(await signedOut.store.get(key)).toBeUndefined();
    await expect(refreshWith(signedOut.tokens.refreshToken)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("refuses an authorization response whose iss is not exactly the issuer, and never redeems its code", async () => {
    const browser = scriptedBrowser("alice", DEFAULT_REDIRECT_URI);
    const tampered = {
      redirectUri: browser.redirectUri,
      async authorize(url: URL) {
        const params = await browser.authorize(url);
        params.set("iss", `${as.issuer}/`);
        return params;
      },
    };
    const recorder = recordingFetch();
    const auth = oauthClientProvider({
      grant: "authorization_code",
      clientId: "mcp-interactive",
      redirect: tampered,
      fetch: recorder.fetch,
    });
    const failure = (await new Client(mcp.url, { http: { auth } })
      .connect()
      .catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("authorization_response");
    expect(recorder.urls.some((url) => url.endsWith("/token"))).toBe(false);
  });

  it("refuses an authorization response without iss, since oidc-provider advertises it", async () => {
    const browser = scriptedBrowser("alice", DEFAULT_REDIRECT_URI);
    const stripped = {
      redirectUri: browser.redirectUri,
      async authorize(url: URL) {
        const params = await browser.authorize(url);
        params.delete("iss");
        return params;
      },
    };
    const auth = oauthClientProvider({
      grant: "authorization_code",
      clientId: "mcp-interactive",
      redirect: stripped,
    });
    await expect(new Client(mcp.url, { http: { auth } }).connect()).rejects.toThrow(/no iss parameter/);
  });
});

describe("protected resource metadata for another resource", () => {
  it("is refused before the user is sent anywhere", async () => {
    const other = await startProtectedServer();
    try {
      other.protect(as.issuer, { metadataResource: "http://127.0.0.1:1/mcp" });
      const browser = scriptedBrowser("alice", DEFAULT_REDIRECT_URI);
      const auth = oauthClientProvider({
        grant: "authorization_code",
        clientId: "mcp-interactive",
        redirect: browser,
      });
      const failure = (await new Client(other.url, { http: { auth } })
        .connect()
        .catch((e: unknown) => e)) as OAuthError;
      expect(failure.code).toBe("resource_mismatch");
      expect(browser.visited).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("without an auth provider", () => {
  it("the refusal surfaces as HttpStatusError naming what to configure", async () => {
    const failure = await new Client(mcp.url).connect().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpStatusError);
    expect((failure as Error).message).toContain("auth provider");
  });
});
